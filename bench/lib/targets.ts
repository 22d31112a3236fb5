// The issue's targets (issue 35, replacing issue 23's), one column per
// deployment: SQLite embedded, and PostgreSQL + Redis with one instance (the
// reads' ratios 0.05× lower). Stated for 64 connections, 10 s per scenario,
// the full data, the median of three runs.
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
  /** Units per second divided by the hello world without logging. */
  minBareRatio?: number;
  maxP99Ms?: number;
  /**
   * The p99 is at most the larger of 3× the scenario's own p50 and 2× the
   * same-logging hello world's p99 in the same round: one stall delays every
   * request in flight, so a tail far beyond both is a stall to find.
   */
  stallBound?: boolean;
}

/** p99 of the leaderboard while logins run (issue 23's, kept), at 64 connections. */
export const READ_P99_MS: Record<Dialect, number> = { sqlite: 25, postgres: 40 };

const cents = (x: number) => Math.round(x * 100) / 100;

export function targetsFor(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const less = pg ? 0.05 : 0;
  const read = (hello: number, bare: number): Target => ({ minRatio: cents(hello - less), minBareRatio: cents(bare - less), stallBound: true });
  return {
    health: read(0.8, 0.45),
    leaderboard: read(0.75, 0.4),
    /** A price with a session, and a public profile. */
    price: read(0.75, 0.4),
    publicRead: read(0.75, 0.4),
    portfolio: read(0.45, 0.22),
    /** The feed, and history at offsets 5,000 and 10,000. */
    deepRead: read(0.25, 0.12),
    /** Reads the table gives no ratio (a leaderboard window, a bet page): the tail still holds. */
    otherRead: { stallBound: true } as Target,
    /** Open + close pairs by 64+ traders, commits durable. */
    betPairs: (pg ? { minRatio: 0.25, against: 'pgbench-N', stallBound: true } : { minRatio: 0.15, stallBound: true }) as Target,
    /** The leaderboard read while logins run at full speed: a read at 64 connections like any other. */
    leaderboardDuringLogins: { maxP99Ms: READ_P99_MS[dialect] } as Target,
    /** Public reads everyone sees alike, through nginx's micro-cache, against a hello world through the same nginx. */
    scaleOutPublicRead: { minRatio: 1.0, against: 'nginx-hello' } as Target,
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

/** What a target is judged on besides the ratios: the no-log ratio and the tail's bound. */
export interface Judged extends Ratios {
  ratioBare?: number | null;
  p50Ms?: number;
  /** The same-logging hello world's p99 in the same round. */
  baselineP99Ms?: number | null;
}

/** The larger of 3× the p50 and 2× the paired hello world's p99; null without a p50. */
export function stallBoundOf(r: Pick<Judged, 'p50Ms' | 'baselineP99Ms'>): number | null {
  if (r.p50Ms === undefined) return null;
  return Math.max(3 * r.p50Ms, 2 * (r.baselineP99Ms ?? 0));
}

export function meets(target: Target | null, judged: Judged, p99: number): boolean | null {
  if (!target) return null;
  if (target.minRatio !== undefined) {
    const ratio = ratioFor(target, judged);
    if (ratio === null || !(ratio >= target.minRatio)) return false;
  }
  if (target.minBareRatio !== undefined && !((judged.ratioBare ?? Number.NEGATIVE_INFINITY) >= target.minBareRatio)) return false;
  if (target.maxP99Ms !== undefined && !(p99 <= target.maxP99Ms)) return false;
  if (target.stallBound) {
    const bound = stallBoundOf(judged);
    if (bound === null || !(p99 <= bound)) return false;
  }
  return true;
}

const AGAINST_LABEL: Record<Against, string> = { hello: '', 'pgbench-N': ' pgbench -N', 'nginx-hello': ' hello via nginx' };

export function describeTarget(target: Target | null): string {
  if (!target) return '(reported)';
  const parts: string[] = [];
  if (target.minRatio !== undefined) parts.push(`≥ ${target.minRatio.toFixed(2)}×${AGAINST_LABEL[target.against ?? 'hello']}`);
  if (target.minBareRatio !== undefined) parts.push(`≥ ${target.minBareRatio.toFixed(2)}× no-log`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  if (target.stallBound) parts.push('p99 ≤ max(3× p50, 2× hello p99)');
  return parts.join(', ');
}
