import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ALPHA_SD_FLOOR, alphaOf, benchmarkOf, compareRanked, rankedCount, skillOf, windowStartDay } from '../../src/domain/rankings.js';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} ≈ ${b}`);

describe('rolling windows', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  test('Nd is today and the N − 1 UTC days before it; all has no bound', () => {
    assert.equal(windowStartDay('7d', now), '2026-03-04');
    assert.equal(windowStartDay('30d', now), '2026-02-09');
    assert.equal(windowStartDay('90d', now), '2025-12-11');
    assert.equal(windowStartDay('365d', now), '2025-03-11');
    assert.equal(windowStartDay('all', now), null);
  });
  test('the start moves at 00:00 UTC, not with the hour', () => {
    assert.equal(windowStartDay('7d', Date.parse('2026-03-10T00:00:00Z')), '2026-03-04');
    assert.equal(windowStartDay('7d', Date.parse('2026-03-10T23:59:59.999Z')), '2026-03-04');
    assert.equal(windowStartDay('7d', Date.parse('2026-03-11T00:00:00Z')), '2026-03-05');
  });
});

describe('what the ranked board counts of a bet', () => {
  const bet = {
    direction: 'LONG' as const,
    percentage_gain: 10,
    benchmark_entry: 500,
    benchmark_exit: 520,
    ranked_gain: 6,
    benchmark_committed: 510,
  };
  test('its ranked gain, and ranked alpha from the committed benchmark price, never the raw ones', () => {
    const c = rankedCount(bet);
    assert.ok(c);
    assert.equal(c.gain, 6);
    // 6 − (520 − 510) / 510 × 100: the market's move after the window only.
    close(c.alpha!, 6 - (10 / 510) * 100);
    close(rankedCount({ ...bet, direction: 'SHORT', ranked_gain: -2 })!.alpha!, -2 + (10 / 510) * 100);
  });
  test('nothing for a bet not ranked (closed inside its window, cancelled, unranked), however large its raw gain', () => {
    assert.equal(rankedCount({ ...bet, ranked_gain: null, percentage_gain: 50 }), null);
  });
  test('a ranked bet without a committed or exit benchmark price counts without alpha', () => {
    assert.deepEqual(rankedCount({ ...bet, benchmark_committed: null }), { gain: 6, alpha: null });
    assert.deepEqual(rankedCount({ ...bet, benchmark_exit: null }), { gain: 6, alpha: null });
    // The entry benchmark does not matter to it.
    assert.deepEqual(rankedCount({ ...bet, benchmark_entry: null }), rankedCount(bet));
  });
});

describe('alpha', () => {
  test('benchmarks: BTC-USD for crypto pairs, SPY for stocks and ETFs', () => {
    assert.equal(benchmarkOf('ETH-USD'), 'BTC-USD');
    assert.equal(benchmarkOf('BTC-USD'), 'BTC-USD');
    assert.equal(benchmarkOf('AAPL'), 'SPY');
    assert.equal(benchmarkOf('QQQ'), 'SPY');
  });
  test('gain minus the same direction on the benchmark', () => {
    // LONG +10 % while SPY rose 4 %: 6 points of alpha.
    close(alphaOf('LONG', 10, 500, 520)!, 6);
    // SHORT +10 % while SPY rose 4 %: the market was against it, 14 points.
    close(alphaOf('SHORT', 10, 500, 520)!, 14);
    // SHORT +10 % while SPY fell 4 %: 6 points.
    close(alphaOf('SHORT', 10, 500, 480)!, 6);
    assert.equal(alphaOf('LONG', 3, 500, 500), 3);
  });
  test('no alpha without both benchmark prices', () => {
    assert.equal(alphaOf('LONG', 10, null, 520), null);
    assert.equal(alphaOf('LONG', 10, 500, null), null);
    assert.equal(alphaOf('LONG', 10, 0, 520), null);
  });
});

describe('skill', () => {
  test('hand-computed: alphas 0, 10, 20 → mean 10, s = 10, skill 10 − 1.645 × 10 / √3', () => {
    const s = skillOf({ n: 3, sum: 30, sumSq: 0 + 100 + 400 })!;
    close(s.mean_alpha, 10);
    close(s.s, 10);
    close(s.skill, 10 - (1.645 * 10) / Math.sqrt(3));
  });
  test('s is floored at 5 points: one trade, or identical trades', () => {
    const one = skillOf({ n: 1, sum: 40, sumSq: 1600 })!;
    assert.equal(one.s, ALPHA_SD_FLOOR);
    close(one.skill, 40 - 1.645 * 5);
    const steady = skillOf({ n: 4, sum: 8, sumSq: 16 })!;
    assert.equal(steady.s, ALPHA_SD_FLOOR);
    close(steady.skill, 2 - (1.645 * 5) / 2);
  });
  test('none for n = 0', () => {
    assert.equal(skillOf({ n: 0, sum: 0, sumSq: 0 }), null);
  });
  test('property: skill never exceeds mean alpha, and matches the two-pass standard deviation', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -200, max: 200, noNaN: true }), { minLength: 2, maxLength: 50 }), (alphas) => {
        const n = alphas.length;
        const sum = alphas.reduce((a, b) => a + b, 0);
        const s = skillOf({ n, sum, sumSq: alphas.reduce((a, b) => a + b * b, 0) })!;
        const mean = sum / n;
        const sd = Math.sqrt(alphas.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
        assert.ok(s.skill <= s.mean_alpha);
        assert.ok(Math.abs(s.s - Math.max(ALPHA_SD_FLOOR, sd)) < 1e-6 * Math.max(1, sd));
      }),
    );
  });
  test('order: skill, then n, then id', () => {
    const rows = [
      { id: 3, skill: 1, n: 2 },
      { id: 1, skill: 1, n: 2 },
      { id: 2, skill: 1, n: 5 },
      { id: 4, skill: 2, n: 1 },
    ];
    assert.deepEqual(
      rows.sort(compareRanked).map((r) => r.id),
      [4, 2, 1, 3],
    );
  });
});
