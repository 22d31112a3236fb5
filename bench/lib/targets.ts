// The targets (64 connections, 10 s per endpoint, SQLite, full data).
// Throughput is a ratio to the bare Fastify baseline measured in the same run.

export interface Target {
  /** Requests (or, for pairs, pairs) per second divided by hello-world requests per second. */
  minRatio?: number;
  maxP99Ms?: number;
}

export const TARGETS = {
  health: { minRatio: 0.75, maxP99Ms: 10 },
  leaderboard: { minRatio: 0.7, maxP99Ms: 15 },
  price: { minRatio: 0.5, maxP99Ms: 20 },
  portfolio: { minRatio: 0.35, maxP99Ms: 25 },
  deepRead: { minRatio: 0.25, maxP99Ms: 40 },
  betPairs: { minRatio: 0.1, maxP99Ms: 50 },
  leaderboardDuringLogins: { maxP99Ms: 50 },
} satisfies Record<string, Target>;

export const PEAK_RSS_TARGET_MB = 300;

/** The configuration the targets are stated for; other runs are indicative only. */
export const TARGET_CONDITIONS = { connections: 64, durationS: 10, dialect: 'sqlite', size: 'full' } as const;

export function meets(target: Target | null, ratio: number, p99: number): boolean | null {
  if (!target) return null;
  if (target.minRatio !== undefined && !(ratio >= target.minRatio)) return false;
  if (target.maxP99Ms !== undefined && !(p99 <= target.maxP99Ms)) return false;
  return true;
}

export function describeTarget(target: Target | null): string {
  if (!target) return '(reported)';
  const parts: string[] = [];
  if (target.minRatio !== undefined) parts.push(`≥ ${target.minRatio.toFixed(2)}×`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  return parts.join(', ');
}
