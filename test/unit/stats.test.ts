import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cancelRate, cumulativeCurve, maxDrawdown, median, medianHoldingSeconds, tradeStats, traderFigures } from '../../src/domain/stats.js';

const H = 3_600_000;
const M = 60_000;
const bet = (gain: number, closedHour: number, heldHours = 1) => ({
  gain,
  opened_at: (closedHour - heldHours) * H,
  closed_at: closedHour * H,
});
/** A CLOSED bet as the statistics read it: ranked unless `ranked` is null. */
const closed = (gain: number, ranked: number | null, closedAt: number, heldMs: number) => ({
  percentage_gain: gain,
  ranked_gain: ranked,
  opened_at: closedAt - heldMs,
  closed_at: closedAt,
});

describe('trader statistics', () => {
  test('hand-computed example', () => {
    // Exit order: +10, -4, +6, -15, +3  → curve 10, 6, 12, -3, 0
    const bets = [bet(6, 3, 2), bet(10, 1), bet(-15, 4, 10), bet(-4, 2), bet(3, 5, 3)];
    const s = tradeStats(bets);
    assert.equal(s.trades, 5);
    assert.equal(s.wins, 3);
    assert.equal(s.win_rate, 0.6);
    assert.equal(s.average_gain, 0);
    assert.equal(s.median_gain, 3);
    assert.equal(s.best_gain, 10);
    assert.equal(s.worst_gain, -15);
    assert.equal(medianHoldingSeconds(bets), 2 * 3600);
    assert.equal(s.max_drawdown, 15, 'peak 12 down to -3');
    assert.equal(s.total_gain, 0);
  });

  test('drawdown counts from the starting zero and from later peaks', () => {
    assert.equal(maxDrawdown([-5, -8, -2]), 8);
    assert.equal(maxDrawdown([5, 10, 4, 20, 1]), 19);
    assert.equal(maxDrawdown([1, 2, 3]), 0);
    assert.equal(maxDrawdown([]), 0);
  });

  test('median of even and odd counts; empty is null', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), null);
  });

  test('a trader with 200,000 closes: best, worst and median without overflowing the stack; bets out of exit order are sorted', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => bet(((i * 7919) % 201) - 100, i + 1));
    const s = tradeStats(many);
    assert.equal(s.best_gain, 100);
    assert.equal(s.worst_gain, -100);
    assert.equal(s.median_gain, 0);
    const shuffled = [bet(1, 3), bet(2, 1), bet(4, 2)];
    assert.deepEqual(
      cumulativeCurve(shuffled).map((p) => p.value),
      [2, 6, 7],
    );
  });

  test('no trades: nulls, zero drawdown', () => {
    const s = tradeStats([]);
    assert.equal(s.trades, 0);
    assert.equal(s.win_rate, null);
    assert.equal(s.average_gain, null);
    assert.equal(s.max_drawdown, 0);
    const f = traderFigures([]);
    assert.equal(f.closed_trades, 0);
    assert.equal(f.ranked_trades, 0);
    assert.equal(f.early_closes, 0);
    assert.equal(f.early_close_share, null);
    assert.equal(f.median_holding_seconds, null);
    assert.deepEqual(f.raw, { closed_trades: 0, wins: 0, win_rate: null, average_gain: null, total_gain: 0 });
    assert.deepEqual(f.curve, []);
  });

  test('cumulative curve in exit order; cancel rate', () => {
    assert.deepEqual(
      cumulativeCurve([bet(2, 5), bet(1, 3)]).map((p) => p.value),
      [1, 3],
    );
    assert.equal(cancelRate(0, 0), null);
    assert.equal(cancelRate(8, 2), 0.25);
  });
});

describe('scored and raw figures', () => {
  // The free option: three closes inside the window (all up), one ranked loser, one ranked winner.
  const bets = [
    closed(0.5, null, 1 * H, 30_000),
    closed(0.4, null, 2 * H, 4 * M + 59_000),
    closed(0.3, null, 3 * H, 4 * M), // settled inside its window: early too
    closed(2, -1, 4 * H, H),
    closed(1, 3, 5 * H, 2 * H),
  ];

  test('scored figures and the curve use ranked gains only', () => {
    const f = traderFigures(bets);
    assert.equal(f.closed_trades, 5);
    assert.equal(f.ranked_trades, 2);
    assert.equal(f.wins, 1);
    assert.equal(f.win_rate, 0.5);
    assert.equal(f.average_gain, 1);
    assert.equal(f.median_gain, 1);
    assert.equal(f.best_gain, 3);
    assert.equal(f.worst_gain, -1);
    assert.equal(f.total_gain, 2);
    assert.equal(f.max_drawdown, 1, 'from the starting zero down to -1');
    assert.deepEqual(f.curve, [
      { at: 4 * H, value: -1 },
      { at: 5 * H, value: 2 },
    ]);
  });

  test('raw figures count every close; early closes and the holding time too', () => {
    const f = traderFigures(bets);
    assert.deepEqual(f.raw, { closed_trades: 5, wins: 5, win_rate: 1, average_gain: 0.84, total_gain: 4.2 });
    assert.equal(f.early_closes, 3);
    assert.equal(f.early_close_share, 0.6);
    assert.equal(f.median_holding_seconds, 4 * 60 + 59, 'over every CLOSED bet, early ones included');
  });

  test('a close exactly at the committed instant is not early', () => {
    const f = traderFigures([closed(1, null, H, 5 * M), closed(1, null, H, 5 * M - 1)]);
    assert.equal(f.early_closes, 1);
    assert.equal(f.early_close_share, 0.5);
    assert.equal(f.ranked_trades, 0);
    assert.equal(f.win_rate, null, 'no ranked bet: no scored figures');
    assert.equal(f.total_gain, 0);
    assert.equal(f.raw.total_gain, 2);
  });
});
