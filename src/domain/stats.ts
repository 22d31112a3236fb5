// Trader statistics as pure functions over a user's finished bets.
// Scored figures use ranked gains only (docs/rankings.md): a close made while
// the bet could still have been cancelled is riskless, so it never scores.
// Raw figures (every close, percentage_gain, as SPEC's /leaderboard) stand
// beside them, labelled, with the integrity figures that show the farming.
import { endedEarly } from './bets.js';

/** One gain of a finished bet, with its holding period (ms instants). */
export interface FinishedBet {
  gain: number;
  opened_at: number;
  closed_at: number;
}

/** A CLOSED bet as the statistics read it. */
export interface ClosedBetFacts {
  percentage_gain: number;
  /** Null for a bet that is not ranked. */
  ranked_gain: number | null;
  opened_at: number;
  closed_at: number;
}

export interface TradeStats {
  trades: number;
  wins: number;
  win_rate: number | null;
  average_gain: number | null;
  median_gain: number | null;
  best_gain: number | null;
  worst_gain: number | null;
  /** Largest fall of the cumulative-gain curve from a previous peak (the curve starts at 0), in points. */
  max_drawdown: number;
  total_gain: number;
}

export interface RawStats {
  closed_trades: number;
  wins: number;
  win_rate: number | null;
  average_gain: number | null;
  total_gain: number;
}

export interface TraderFigures extends Omit<TradeStats, 'trades'> {
  closed_trades: number;
  ranked_trades: number;
  raw: RawStats;
  early_closes: number;
  early_close_share: number | null;
  median_holding_seconds: number | null;
  /** The ranked bets' cumulative gain, in exit order. */
  curve: Array<{ at: number; value: number }>;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  // A typed array sorts numbers without a comparator call per step: several times faster over a trader's thousands of bets.
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Whether the bets are already in exit order (as the repository reads them). */
function inExitOrder(bets: FinishedBet[]): boolean {
  for (let i = 1; i < bets.length; i++) if (bets[i]!.closed_at < bets[i - 1]!.closed_at) return false;
  return true;
}

/** Cumulative gain after each bet, in exit order. */
export function cumulativeCurve(bets: FinishedBet[]): Array<{ at: number; value: number }> {
  let total = 0;
  return (inExitOrder(bets) ? bets : [...bets].sort((a, b) => a.closed_at - b.closed_at)).map((b) => {
    total += b.gain;
    return { at: b.closed_at, value: total };
  });
}

export function maxDrawdown(curve: number[]): number {
  let peak = 0;
  let worst = 0;
  for (const v of curve) {
    peak = Math.max(peak, v);
    worst = Math.max(worst, peak - v);
  }
  return worst;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
const share = (part: number, whole: number) => (whole === 0 ? null : round(part / whole));

/** Statistics of a set of gains (the ranked ones, for the scored figures). */
export function tradeStats(bets: FinishedBet[]): TradeStats {
  const gains = bets.map((b) => b.gain);
  const n = gains.length;
  const wins = gains.filter((g) => g > 0).length;
  const total = gains.reduce((a, b) => a + b, 0);
  const curve = cumulativeCurve(bets).map((p) => p.value);
  return {
    trades: n,
    wins,
    win_rate: share(wins, n),
    average_gain: n ? round(total / n) : null,
    median_gain: median(gains),
    // A loop, not Math.max(...gains): spreading some 120,000 arguments overflows the stack.
    best_gain: n ? gains.reduce((a, b) => (b > a ? b : a)) : null,
    worst_gain: n ? gains.reduce((a, b) => (b < a ? b : a)) : null,
    max_drawdown: round(maxDrawdown(curve)),
    total_gain: round(total),
  };
}

/** Raw figures: every CLOSED bet's percentage_gain counts, as on SPEC's /leaderboard. */
export function rawStats(closed: ClosedBetFacts[]): RawStats {
  const s = tradeStats(closed.map((b) => ({ gain: b.percentage_gain, opened_at: b.opened_at, closed_at: b.closed_at })));
  return { closed_trades: s.trades, wins: s.wins, win_rate: s.win_rate, average_gain: s.average_gain, total_gain: s.total_gain };
}

/** Median time from opening to exit over the bets given, in seconds. */
export function medianHoldingSeconds(bets: Array<Pick<FinishedBet, 'opened_at' | 'closed_at'>>): number | null {
  return median(bets.map((b) => (b.closed_at - b.opened_at) / 1000));
}

/**
 * Everything the statistics compute from a user's CLOSED bets: scored figures
 * and the curve from ranked gains only, raw figures from every close, closes
 * made before the committed instant (by hand or settled), and the median
 * holding time over every CLOSED bet (early ones included; cancelled bets are
 * counted apart).
 */
export function traderFigures(closed: ClosedBetFacts[]): TraderFigures {
  const ranked: FinishedBet[] = [];
  for (const b of closed) if (b.ranked_gain !== null) ranked.push({ gain: b.ranked_gain, opened_at: b.opened_at, closed_at: b.closed_at });
  const { trades, ...scored } = tradeStats(ranked);
  const early = closed.filter((b) => endedEarly(b.opened_at, b.closed_at)).length;
  return {
    closed_trades: closed.length,
    ranked_trades: trades,
    ...scored,
    raw: rawStats(closed),
    early_closes: early,
    early_close_share: share(early, closed.length),
    median_holding_seconds: medianHoldingSeconds(closed),
    curve: cumulativeCurve(ranked),
  };
}

/** Cancelled / opened: makes use of the 5-minute window visible. */
export function cancelRate(opened: number, cancelled: number): number | null {
  return share(cancelled, opened);
}
