// The web app's pure formatting rules (web/src/lib/format.ts), run in Node.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gainCurvePoints } from '../../web/src/lib/curve.js';
import {
  formatCountdown,
  formatDuration,
  formatGain,
  formatMoney,
  formatPoints,
  formatPrice,
  formatRate,
  gainClass,
  todayUtc,
} from '../../web/src/lib/format.js';
import { parseWindow, writeWindow } from '../../web/src/lib/window-params.js';

describe('web formatting', () => {
  test("plan prices are in the currency's smallest unit", () => {
    assert.match(formatMoney(500, 'usd'), /\$5\.00/);
    assert.match(formatMoney(1999, 'EUR'), /19[.,]99/);
    // The yen has no minor unit: 500 is ¥500, not ¥5.
    assert.match(formatMoney(500, 'jpy'), /500/);
    assert.doesNotMatch(formatMoney(500, 'jpy'), /5\.00/);
    assert.match(formatMoney(500, 'xx'), /5\.00 XX/);
  });

  test('gains carry their sign and colour', () => {
    assert.equal(formatGain(1.234), '+1.23%');
    assert.equal(formatGain(-0.5), '−0.50%');
    assert.equal(formatGain(0), '0.00%');
    assert.deepEqual([gainClass(2), gainClass(-2), gainClass(0)], ['gain-up', 'gain-down', 'gain-flat']);
  });

  test('prices: two decimals, more below 1', () => {
    assert.equal(formatPrice(134549.884), '134,549.88');
    assert.equal(formatPrice(0.01234), '0.01234');
  });

  test('the cancel countdown never goes negative and rounds up', () => {
    assert.equal(formatCountdown(299_001), '5:00');
    assert.equal(formatCountdown(61_000), '1:01');
    assert.equal(formatCountdown(-5), '0:00');
  });

  test('today is the UTC date (the target-date rule)', () => {
    assert.equal(todayUtc(new Date('2026-03-01T23:30:00-05:00')), '2026-03-02');
  });

  test('rates are fractions shown as percentages; none is a dash', () => {
    assert.equal(formatRate(2 / 3), '66.7%');
    assert.equal(formatRate(0), '0.0%');
    assert.equal(formatRate(1), '100.0%');
    assert.equal(formatRate(null), '—');
  });

  test('durations in their two largest units', () => {
    assert.equal(formatDuration(44.6), '45 s');
    assert.equal(formatDuration(60), '1 min');
    assert.equal(formatDuration(3599), '59 min');
    assert.equal(formatDuration(3 * 3600 + 5 * 60 + 59), '3 h 05 min');
    assert.equal(formatDuration(2 * 86400 + 4 * 3600 + 1), '2 d 4 h');
    assert.equal(formatDuration(null), '—');
    assert.equal(formatDuration(-3), '0 s');
  });

  test('points carry a sign like gains', () => {
    assert.equal(formatPoints(3.2), '+3.20 pt');
    assert.equal(formatPoints(-0.5), '−0.50 pt');
    assert.equal(formatPoints(-0), '0.00 pt');
  });
});

describe('web cumulative-gain curve', () => {
  test('starts at the origin and rises strictly in time; closes in the same second keep the later total', () => {
    assert.deepEqual(gainCurvePoints([]), []);
    assert.deepEqual(
      gainCurvePoints([
        { t: '2026-03-02T15:00:00.100Z', value: 1.5 },
        { t: '2026-03-02T15:00:00.900Z', value: -0.5 },
        { t: '2026-03-02T15:00:07.000Z', value: 2 },
      ]),
      [
        { time: Date.parse('2026-03-02T14:59:59Z') / 1000, value: 0 },
        { time: Date.parse('2026-03-02T15:00:00Z') / 1000, value: -0.5 },
        { time: Date.parse('2026-03-02T15:00:07Z') / 1000, value: 2 },
      ],
    );
  });
});

describe('web window query (leaderboard, rankings)', () => {
  const rankings = { period: '90d' as const, minTrades: null };
  const board = { period: null, minTrades: null };

  test('valid values are read; malformed ones fall back to the defaults', () => {
    assert.deepEqual(parseWindow(new URLSearchParams('period=7d&min_trades=3'), rankings), { period: '7d', minTrades: 3 });
    assert.deepEqual(parseWindow(new URLSearchParams('period=2d&min_trades=0'), rankings), rankings);
    assert.deepEqual(parseWindow(new URLSearchParams('min_trades=1.5'), board), board);
    assert.deepEqual(parseWindow(new URLSearchParams('min_trades=99999999'), board), board);
    assert.deepEqual(parseWindow(new URLSearchParams('min_trades=-2'), board), board);
    assert.deepEqual(parseWindow(new URLSearchParams('period=all'), board), { period: 'all', minTrades: null });
  });

  test('the query keeps other parameters and leaves defaults out', () => {
    const q = new URLSearchParams('offset=20&period=30d');
    assert.equal(writeWindow(q, { period: '7d', minTrades: 2 }, rankings).toString(), 'offset=20&period=7d&min_trades=2');
    assert.equal(writeWindow(q, { period: '90d', minTrades: null }, rankings).toString(), 'offset=20');
    assert.equal(writeWindow(q, { period: null, minTrades: 4 }, board).toString(), 'offset=20&min_trades=4');
    assert.equal(q.toString(), 'offset=20&period=30d', 'the given query is not changed');
  });
});
