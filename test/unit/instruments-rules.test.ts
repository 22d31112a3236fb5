// Instrument directory rules: search ranking, market hours, daily change.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { dailyChange, dailyChangeBase, type InstrumentInfo, marketHours, matchRank, searchInstruments } from '../../src/domain/instruments.js';

const calendar = testConfig().marketCalendar;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const DIRECTORY: InstrumentInfo[] = [
  { symbol: 'AAPL', name: 'Apple', kind: 'stock', exchange: 'NASDAQ' },
  { symbol: 'APP', name: 'AppLovin', kind: 'stock', exchange: 'NASDAQ' },
  { symbol: 'PINE', name: 'Pineapple Growers', kind: 'stock', exchange: 'NYSE' },
  { symbol: 'GOOGL', name: 'Alphabet Class A', kind: 'stock', exchange: 'NASDAQ' },
  { symbol: 'BTC-USD', name: 'Bitcoin', kind: 'crypto', exchange: 'Binance' },
  { symbol: 'SPY', name: 'SPDR S&P 500 ETF', kind: 'etf', exchange: 'NYSE Arca' },
];

describe('instrument search', () => {
  test('exact symbol, exact name, then symbol prefix, then a word of the name, then part of it', () => {
    assert.deepEqual(
      searchInstruments(DIRECTORY, 'app').map((i) => i.symbol),
      ['APP', 'AAPL', 'PINE'],
    );
    assert.equal(matchRank(bySymbol('APP'), 'APP'), 0);
    assert.equal(matchRank(bySymbol('AAPL'), 'apple'), 1);
    assert.equal(matchRank(bySymbol('AAPL'), 'aa'), 2);
    assert.equal(matchRank(bySymbol('APP'), 'applo'), 3);
    assert.equal(matchRank(bySymbol('GOOGL'), 'class'), 3);
    assert.equal(matchRank(bySymbol('PINE'), 'apple'), 4);
    assert.equal(matchRank(bySymbol('SPY'), 'bitcoin'), null);
  });

  test('case and spacing do not matter; the empty search lists all, stocks before ETFs before crypto', () => {
    assert.deepEqual(
      searchInstruments(DIRECTORY, '  BitCOIN ').map((i) => i.symbol),
      ['BTC-USD'],
    );
    assert.deepEqual(
      searchInstruments(DIRECTORY, '  alphabet   class ').map((i) => i.symbol),
      ['GOOGL'],
    );
    assert.deepEqual(
      searchInstruments(DIRECTORY, '').map((i) => i.symbol),
      ['AAPL', 'APP', 'GOOGL', 'PINE', 'SPY', 'BTC-USD'],
    );
    assert.deepEqual(searchInstruments(DIRECTORY, 'nothing like it'), []);
  });
});

function bySymbol(s: string): InstrumentInfo {
  return DIRECTORY.find((i) => i.symbol === s) as InstrumentInfo;
}

describe('market hours', () => {
  test('open on a trading day: closes at 16:00 New York, opens next on the next trading day', () => {
    // Wednesday 25 November 2026, 10:00 in New York; Thursday 26 is Thanksgiving.
    const h = marketHours(calendar, 'AAPL', at('2026-11-25T15:00:00Z'));
    assert.deepEqual(
      { open: h.open, nextOpen: iso(h.nextOpen), nextClose: iso(h.nextClose) },
      { open: true, nextOpen: '2026-11-27T14:30:00.000Z', nextClose: '2026-11-25T21:00:00.000Z' },
    );
  });

  test("before the open: today's session; after the close: the next trading day's, skipping holidays and weekends", () => {
    const early = marketHours(calendar, 'SPY', at('2026-11-25T13:00:00Z'));
    assert.deepEqual([early.open, iso(early.nextOpen), iso(early.nextClose)], [false, '2026-11-25T14:30:00.000Z', '2026-11-25T21:00:00.000Z']);
    const evening = marketHours(calendar, 'SPY', at('2026-11-25T21:00:00Z'));
    assert.deepEqual([evening.open, iso(evening.nextOpen)], [false, '2026-11-27T14:30:00.000Z']);
    const saturday = marketHours(calendar, 'SPY', at('2026-11-28T18:00:00Z'));
    assert.deepEqual(
      [saturday.open, iso(saturday.nextOpen), iso(saturday.nextClose)],
      [false, '2026-11-30T14:30:00.000Z', '2026-11-30T21:00:00.000Z'],
    );
  });

  test('across a daylight-saving change the open stays 9:30 New York', () => {
    // Saturday 31 October 2026 → Monday 2 November, after clocks went back (EST, UTC−5).
    const h = marketHours(calendar, 'AAPL', at('2026-10-31T12:00:00Z'));
    assert.equal(iso(h.nextOpen), '2026-11-02T14:30:00.000Z');
    const summer = marketHours(calendar, 'AAPL', at('2026-07-04T12:00:00Z'));
    assert.equal(iso(summer.nextOpen), '2026-07-06T13:30:00.000Z');
  });

  test('crypto is always open and has no open or close', () => {
    assert.deepEqual(marketHours(calendar, 'BTC-USD', at('2026-11-28T18:00:00Z')), { open: true, nextOpen: null, nextClose: null });
  });
});

describe('daily change', () => {
  test("a stock's base is the previous trading day's close, also for a quote dated at a close", () => {
    assert.equal(iso(dailyChangeBase(calendar, 'AAPL', at('2026-11-25T15:00:00Z'))), '2026-11-24T21:00:00.000Z');
    assert.equal(iso(dailyChangeBase(calendar, 'AAPL', at('2026-11-25T21:00:00Z'))), '2026-11-24T21:00:00.000Z');
    // Friday after Thanksgiving: the day before was a holiday.
    assert.equal(iso(dailyChangeBase(calendar, 'AAPL', at('2026-11-27T15:00:00Z'))), '2026-11-25T21:00:00.000Z');
    // Monday: Friday's close.
    assert.equal(iso(dailyChangeBase(calendar, 'AAPL', at('2026-11-30T15:00:00Z'))), '2026-11-27T21:00:00.000Z');
  });

  test("crypto's base is 24 hours earlier", () => {
    assert.equal(iso(dailyChangeBase(calendar, 'ETH-USD', at('2026-11-28T18:00:00Z'))), '2026-11-27T18:00:00.000Z');
  });

  test('absolute and percent change, rounded; none without a previous close', () => {
    assert.deepEqual(dailyChange(110, 100), { change: 10, changePercent: 10 });
    assert.deepEqual(dailyChange(99.995, 100.01), { change: -0.02, changePercent: -0.01 });
    assert.deepEqual(dailyChange(0.123456, 0.1), { change: 0.023456, changePercent: 23.46 });
    assert.deepEqual(dailyChange(100, 100), { change: 0, changePercent: 0 });
    assert.equal(dailyChange(100, null), null);
    assert.equal(dailyChange(100, 0), null);
  });
});
