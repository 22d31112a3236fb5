// Leaderboard windows, alpha against a benchmark and the skill score: pure
// rules, no I/O.
import { type Direction, percentageGain } from './bets.js';
import { isCryptoTicker, utcDate } from './market-calendar.js';

export const PERIODS = ['7d', '30d', '90d', '365d', 'all'] as const;
export type Period = (typeof PERIODS)[number];
/** The rankings' window when none is asked for; the consensus weights holders by their skill in it. */
export const RANKINGS_DEFAULT_PERIOD: Period = '90d';

const DAY_MS = 86_400_000;
const PERIOD_DAYS: Record<Exclude<Period, 'all'>, number> = { '7d': 7, '30d': 30, '90d': 90, '365d': 365 };

/**
 * The first UTC day ('YYYY-MM-DD') of a rolling window ending now: `Nd` is
 * today and the N − 1 days before it, whole days by exit time. Null for `all`.
 */
export function windowStartDay(period: Period, now: number): string | null {
  if (period === 'all') return null;
  return utcDate(now - (PERIOD_DAYS[period] - 1) * DAY_MS);
}

/** What a ticker is measured against: BTC-USD for crypto pairs, SPY for stocks and ETFs. */
export function benchmarkOf(ticker: string): string {
  return isCryptoTicker(ticker) ? 'BTC-USD' : 'SPY';
}

/**
 * A closed bet's alpha in percentage points: its gain minus its direction's
 * sign times the benchmark's return over the same holding period, which is
 * the gain the same direction on the benchmark would have made. A LONG in a
 * rising market or a SHORT in a falling one earns no alpha for the market's
 * move. Null without both benchmark prices.
 */
export function alphaOf(direction: Direction, gain: number, benchmarkEntry: number | null, benchmarkExit: number | null): number | null {
  if (benchmarkEntry === null || benchmarkExit === null || !(benchmarkEntry > 0)) return null;
  const marketMove = percentageGain(direction, benchmarkEntry, benchmarkExit);
  return gain - marketMove;
}

/** What a board needs of a finished bet to count it. */
export interface ScoredBet {
  direction: Direction;
  percentage_gain: number | null;
  benchmark_entry: number | null;
  benchmark_exit: number | null;
  ranked_gain: number | null;
  benchmark_committed: number | null;
}

/**
 * A finished bet as the ranked board and the rankings count it: its ranked
 * gain, and its ranked alpha (alphaOf from the benchmark's committed price,
 * the instant the bet stopped being cancellable, to its exit price). Null for
 * a bet not ranked (finished inside its cancel window, cancelled, or never
 * committed): such a close was riskless, so it never scores.
 */
export function rankedCount(bet: ScoredBet): { gain: number; alpha: number | null } | null {
  if (bet.ranked_gain === null) return null;
  return { gain: bet.ranked_gain, alpha: alphaOf(bet.direction, bet.ranked_gain, bet.benchmark_committed, bet.benchmark_exit) };
}

/** Standard deviations below this many points are taken as this: one lucky trade cannot look certain. */
export const ALPHA_SD_FLOOR = 5;
/** One-sided 95 % normal quantile: skill is the lower bound of mean alpha's confidence interval. */
export const SKILL_Z = 1.645;

export interface AlphaSums {
  n: number;
  sum: number;
  sumSq: number;
}

export interface Skill {
  n: number;
  mean_alpha: number;
  /** Sample standard deviation, floored at ALPHA_SD_FLOOR. */
  s: number;
  skill: number;
}

/** Mean alpha − 1.645 × s / √n from summed alphas; null for n = 0. */
export function skillOf({ n, sum, sumSq }: AlphaSums): Skill | null {
  if (n <= 0) return null;
  const mean = sum / n;
  // Sums of squares lose a little precision; a variance that rounds below zero is zero.
  const variance = n > 1 ? Math.max(0, (sumSq - n * mean * mean) / (n - 1)) : 0;
  const s = Math.max(ALPHA_SD_FLOOR, Math.sqrt(variance));
  return { n, mean_alpha: mean, s, skill: mean - (SKILL_Z * s) / Math.sqrt(n) };
}

/** Rankings order: skill, then more trades, then the older account (lower id). */
export function compareRanked(a: { skill: number; n: number; id: number }, b: { skill: number; n: number; id: number }): number {
  return b.skill - a.skill || b.n - a.n || a.id - b.id;
}
