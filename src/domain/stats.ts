// Trader statistics as pure functions over a user's finished bets.

export interface FinishedBet {
  percentage_gain: number;
  opened_at: number;
  closed_at: number;
}

export interface TradeStats {
  closed_trades: number;
  wins: number;
  win_rate: number | null;
  average_gain: number | null;
  median_gain: number | null;
  best_gain: number | null;
  worst_gain: number | null;
  median_holding_seconds: number | null;
  /** Largest fall of the cumulative-gain curve from a previous peak (the curve starts at 0), in points. */
  max_drawdown: number;
  total_gain: number;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Cumulative gain after each bet, in exit order. */
export function cumulativeCurve(bets: FinishedBet[]): Array<{ at: number; value: number }> {
  let total = 0;
  return [...bets]
    .sort((a, b) => a.closed_at - b.closed_at)
    .map((b) => {
      total += b.percentage_gain;
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

/** Statistics of CLOSED bets (cancelled ones are counted separately, as the cancel rate). */
export function tradeStats(closed: FinishedBet[]): TradeStats {
  const gains = closed.map((b) => b.percentage_gain);
  const n = gains.length;
  const wins = gains.filter((g) => g > 0).length;
  const total = gains.reduce((a, b) => a + b, 0);
  const curve = cumulativeCurve(closed).map((p) => p.value);
  const holding = closed.map((b) => (b.closed_at - b.opened_at) / 1000);
  return {
    closed_trades: n,
    wins,
    win_rate: n ? round(wins / n) : null,
    average_gain: n ? round(total / n) : null,
    median_gain: median(gains),
    best_gain: n ? Math.max(...gains) : null,
    worst_gain: n ? Math.min(...gains) : null,
    median_holding_seconds: median(holding),
    max_drawdown: round(maxDrawdown(curve)),
    total_gain: round(total),
  };
}

/** Cancelled / opened: makes use of the 5-minute window visible. */
export function cancelRate(opened: number, cancelled: number): number | null {
  return opened === 0 ? null : round(cancelled / opened);
}
