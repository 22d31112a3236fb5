import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cancelRate, cumulativeCurve, maxDrawdown, median, tradeStats } from '../../src/domain/stats.js';

const H = 3_600_000;
const bet = (gain: number, closedHour: number, heldHours = 1) => ({
  percentage_gain: gain,
  opened_at: (closedHour - heldHours) * H,
  closed_at: closedHour * H,
});

describe('trader statistics', () => {
  test('hand-computed example', () => {
    // Exit order: +10, -4, +6, -15, +3  → curve 10, 6, 12, -3, 0
    const s = tradeStats([bet(6, 3, 2), bet(10, 1), bet(-15, 4, 10), bet(-4, 2), bet(3, 5, 3)]);
    assert.equal(s.closed_trades, 5);
    assert.equal(s.wins, 3);
    assert.equal(s.win_rate, 0.6);
    assert.equal(s.average_gain, 0);
    assert.equal(s.median_gain, 3);
    assert.equal(s.best_gain, 10);
    assert.equal(s.worst_gain, -15);
    assert.equal(s.median_holding_seconds, 2 * 3600);
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

  test('no trades: nulls, zero drawdown', () => {
    const s = tradeStats([]);
    assert.equal(s.closed_trades, 0);
    assert.equal(s.win_rate, null);
    assert.equal(s.average_gain, null);
    assert.equal(s.max_drawdown, 0);
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
