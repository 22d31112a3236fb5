// The targets (issue 23), one column per deployment: SQLite embedded,
// and PostgreSQL + Redis with one instance. Stated for 64 connections, 10 s
// per scenario, the full data, the median of three runs.
// Throughput is a ratio: to the hello world with the service's logging
// measured in the same run, or for PostgreSQL's writes to `pgbench -N`'s tps
// on the same server; through nginx, to a hello world behind the same nginx.

export type Dialect = 'sqlite' | 'postgres';

/** What a target's ratio divides by. */
export type Against = 'hello' | 'pgbench-N' | 'nginx-hello';

export interface Target {
  /** Units (requests, or pairs) per second divided by the `against` figure. */
  minRatio?: number;
  /** Default 'hello': the hello world with the service's logging. */
  against?: Against;
  maxP99Ms?: number;
}

/** p99 of every read, at 64 connections. */
export const READ_P99_MS: Record<Dialect, number> = { sqlite: 25, postgres: 40 };

export function targetsFor(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const p99 = READ_P99_MS[dialect];
  return {
    health: { minRatio: 0.8, maxP99Ms: p99 },
    leaderboard: { minRatio: 0.7, maxP99Ms: p99 },
    price: { minRatio: pg ? 0.5 : 0.6, maxP99Ms: p99 },
    portfolio: { minRatio: pg ? 0.35 : 0.45, maxP99Ms: p99 },
    /** The feed, a public profile, history at offset 5,000. */
    deepRead: { minRatio: pg ? 0.25 : 0.3, maxP99Ms: p99 },
    /** Reads the table gives no ratio (a leaderboard window, a bet page): the p99 still holds. */
    otherRead: { maxP99Ms: p99 },
    /** Open + close pairs by 64+ traders, commits durable. */
    betPairs: pg ? { minRatio: 0.25, against: 'pgbench-N' } : { minRatio: 0.1 },
    /** The leaderboard read while logins run at full speed: a read at 64 connections like any other. */
    leaderboardDuringLogins: { maxP99Ms: p99 },
    /** Public reads everyone sees alike, through nginx's micro-cache, against a hello world through the same nginx. */
    scaleOutPublicRead: { minRatio: 1.0, against: 'nginx-hello' },
  } satisfies Record<string, Target>;
}

export const PEAK_RSS_TARGET_MB = 300;

/** The configuration the targets are stated for; other runs are indicative only. */
export const TARGET_CONDITIONS = { connections: 64, durationS: 10, size: 'full', runs: 3 } as const;

/** The ratio a target is judged on, from a measurement's ratios. */
export interface Ratios {
  ratio: number;
  ratioPgbenchN?: number | null;
  ratioNginxHello?: number | null;
}

export function ratioFor(target: Target | null, r: Ratios): number | null {
  const against = target?.against ?? 'hello';
  if (against === 'pgbench-N') return r.ratioPgbenchN ?? null;
  if (against === 'nginx-hello') return r.ratioNginxHello ?? null;
  return r.ratio;
}

export function meets(target: Target | null, ratios: Ratios, p99: number): boolean | null {
  if (!target) return null;
  if (target.minRatio !== undefined) {
    const ratio = ratioFor(target, ratios);
    if (ratio === null || !(ratio >= target.minRatio)) return false;
  }
  if (target.maxP99Ms !== undefined && !(p99 <= target.maxP99Ms)) return false;
  return true;
}

const AGAINST_LABEL: Record<Against, string> = { hello: '', 'pgbench-N': ' pgbench -N', 'nginx-hello': ' hello via nginx' };

export function describeTarget(target: Target | null): string {
  if (!target) return '(reported)';
  const parts: string[] = [];
  if (target.minRatio !== undefined) parts.push(`≥ ${target.minRatio.toFixed(2)}×${AGAINST_LABEL[target.against ?? 'hello']}`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  return parts.join(', ');
}
