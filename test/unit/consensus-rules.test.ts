// The consensus rules: weights from ranked skill, the minimum of weighted
// holders, the call, each instrument's closes, and the calls' record.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { closeAfter, closeAtOrBefore, closesAtOrBefore, consensusOf, type Holder, trackRecordOf, weightOf } from '../../src/domain/consensus.js';
import { skillOf } from '../../src/domain/rankings.js';

const calendar = testConfig().marketCalendar;

/** A holder whose n ranked alphas are all `alpha` (sample sd 0, floored at 5 points). */
const holder = (userId: number, direction: 'LONG' | 'SHORT', n = 0, alpha = 0): Holder => ({
  userId,
  direction,
  n,
  sum: n * alpha,
  sumSq: n * alpha * alpha,
});

describe('weights', () => {
  test('a holder without ranked alpha weighs nothing; a negative skill weighs nothing; a positive one weighs its skill', () => {
    assert.equal(weightOf(holder(1, 'LONG')), 0);
    assert.equal(weightOf(holder(1, 'LONG', 4, -3)), 0);
    // 4 trades of alpha 10: mean 10 − 1.645 × 5 / 2.
    const expected = skillOf({ n: 4, sum: 40, sumSq: 400 })?.skill;
    assert.equal(weightOf(holder(1, 'LONG', 4, 10)), expected);
    assert.ok(Math.abs(weightOf(holder(1, 'LONG', 4, 10)) - (10 - (1.645 * 5) / 2)) < 1e-12);
    // One trade of alpha 8: below the 1.645 × 5 penalty of one trade, so no weight.
    assert.equal(weightOf(holder(1, 'LONG', 1, 8)), 0);
  });
});

describe('consensusOf', () => {
  test('raw counts every distinct holder; the weighted figure shows nothing below the minimum', () => {
    const c = consensusOf([holder(1, 'LONG', 4, 10), holder(2, 'LONG'), holder(3, 'SHORT'), holder(2, 'LONG')], 2);
    assert.deepEqual(c.raw, { long: 2, short: 1 });
    assert.deepEqual(c.weighted, { holders: 1, long: null, short: null, long_percent: null, call: 'none' });
  });

  test('from the minimum on, the sides are summed and the heavier side is the call', () => {
    const many = Array.from({ length: 50 }, (_, i) => holder(100 + i, 'LONG'));
    const c = consensusOf([holder(1, 'SHORT', 4, 10), holder(2, 'SHORT', 9, 6), holder(3, 'LONG', 4, 6), ...many], 3);
    assert.deepEqual(c.raw, { long: 51, short: 2 });
    const w1 = 10 - (1.645 * 5) / 2;
    const w2 = 6 - (1.645 * 5) / 3;
    const w3 = 6 - (1.645 * 5) / 2;
    assert.equal(c.weighted.holders, 3);
    assert.equal(c.weighted.call, 'short');
    assert.ok(Math.abs((c.weighted.short ?? 0) - (w1 + w2)) < 1e-4);
    assert.ok(Math.abs((c.weighted.long ?? 0) - w3) < 1e-4);
    assert.ok(Math.abs((c.weighted.long_percent ?? 0) - (w3 / (w1 + w2 + w3)) * 100) < 0.01);
  });

  test('a holder of both sides weighs on both, so a tie calls none', () => {
    const c = consensusOf([holder(1, 'LONG', 4, 10), holder(1, 'SHORT', 4, 10)], 1);
    assert.deepEqual(c.raw, { long: 1, short: 1 });
    assert.equal(c.weighted.holders, 1);
    assert.equal(c.weighted.call, 'none');
    assert.equal(c.weighted.long_percent, 50);
  });

  test('no holders: zeros and no call, whatever the minimum', () => {
    assert.deepEqual(consensusOf([], 1), {
      raw: { long: 0, short: 0 },
      weighted: { holders: 0, long: null, short: null, long_percent: null, call: 'none' },
    });
  });
});

describe('closes', () => {
  const at = (s: string) => Date.parse(s);
  test('stocks close at 16:00 New York on trading days; weekends and holidays have none', () => {
    // Wednesday 25 November 2026, 15:00 New York: the last close was Tuesday's.
    assert.equal(closeAtOrBefore(calendar, 'AAPL', at('2026-11-25T20:00:00Z')), at('2026-11-24T21:00:00Z'));
    assert.equal(closeAtOrBefore(calendar, 'AAPL', at('2026-11-25T21:00:00Z')), at('2026-11-25T21:00:00Z'));
    // Thanksgiving (26 November) is a holiday: Wednesday's close is followed by Friday's.
    assert.equal(closeAfter(calendar, 'AAPL', at('2026-11-25T21:00:00Z')), at('2026-11-27T21:00:00Z'));
    // Saturday: Friday's close; the next is Monday's.
    assert.equal(closeAtOrBefore(calendar, 'SPY', at('2026-11-28T18:00:00Z')), at('2026-11-27T21:00:00Z'));
    assert.equal(closeAfter(calendar, 'SPY', at('2026-11-28T18:00:00Z')), at('2026-11-30T21:00:00Z'));
    // Summer time: 16:00 New York is 20:00 UTC.
    assert.equal(closeAtOrBefore(calendar, 'AAPL', at('2026-07-01T23:00:00Z')), at('2026-07-01T20:00:00Z'));
  });

  test('crypto closes at 00:00 UTC every day', () => {
    assert.equal(closeAtOrBefore(calendar, 'BTC-USD', at('2026-11-28T18:00:00Z')), at('2026-11-28T00:00:00Z'));
    assert.equal(closeAtOrBefore(calendar, 'BTC-USD', at('2026-11-28T00:00:00Z')), at('2026-11-28T00:00:00Z'));
    assert.equal(closeAfter(calendar, 'BTC-USD', at('2026-11-28T00:00:00Z')), at('2026-11-29T00:00:00Z'));
  });

  test('closesAtOrBefore gives every ticker what closeAtOrBefore gives it, stocks and crypto mixed', () => {
    const tickers = ['AAPL', 'BTC-USD', 'SPY', 'ETH-USD', 'MSFT'];
    for (const t of ['2026-11-25T20:00:00Z', '2026-11-25T21:00:00Z', '2026-11-26T12:00:00Z', '2026-11-28T00:00:00Z', '2026-07-01T23:00:00Z']) {
      const closes = closesAtOrBefore(calendar, tickers, at(t));
      assert.deepEqual([...closes.keys()], tickers);
      for (const ticker of tickers) assert.equal(closes.get(ticker), closeAtOrBefore(calendar, ticker, at(t)), `${ticker} at ${t}`);
    }
    assert.equal(closesAtOrBefore(calendar, [], at('2026-11-25T20:00:00Z')).size, 0);
  });
});

describe('trackRecordOf', () => {
  test('long and short calls are scored by the next-day move in their direction; none and unscored calls are not', () => {
    const r = trackRecordOf([
      { call: 'long', closePrice: 100, nextPrice: 102 },
      { call: 'short', closePrice: 100, nextPrice: 99 },
      { call: 'short', closePrice: 100, nextPrice: 104 },
      { call: 'long', closePrice: 100, nextPrice: 100 },
      { call: 'none', closePrice: 100, nextPrice: 150 },
      { call: 'long', closePrice: 100, nextPrice: null },
    ]);
    assert.equal(r.calls, 4);
    assert.equal(r.hits, 2);
    assert.equal(r.hit_rate, 50);
    // (2 + 1 − 4 + 0) / 4
    assert.equal(r.average_move_percent, -0.25);
  });

  test('no scored calls: no rate', () => {
    assert.deepEqual(trackRecordOf([{ call: 'none', closePrice: 1, nextPrice: 2 }]), {
      calls: 0,
      hits: 0,
      hit_rate: null,
      average_move_percent: null,
    });
  });
});
