import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { shippedData } from '../../src/config.js';
import { cancelableUntil, isCancelable, normalizeTicker, percentageGain, targetDateProblem } from '../../src/domain/bets.js';
import { isCryptoTicker, MarketCalendar } from '../../src/domain/market-calendar.js';

const at = (s: string) => Date.parse(s);
const calendar = shippedData().marketCalendar;

describe('bet rules', () => {
  test('gain: LONG (exit − entry) / entry × 100, SHORT the opposite', () => {
    assert.equal(percentageGain('LONG', 100, 110), 10);
    assert.equal(percentageGain('LONG', 200, 150), -25);
    assert.equal(percentageGain('SHORT', 100, 110), -10);
    assert.equal(percentageGain('SHORT', 200, 150), 25);
    assert.equal(percentageGain('SHORT', 100, 100), 0);
  });

  test('gain: LONG and SHORT mirror each other; the sign follows the move', () => {
    const price = fc.double({ min: 0.0001, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(price, price, (entry, exit) => {
        const long = percentageGain('LONG', entry, exit);
        const short = percentageGain('SHORT', entry, exit);
        assert.ok(Math.abs(long + short) < 1e-9 * Math.max(1, Math.abs(long)));
        assert.equal(Math.sign(long), Math.sign(exit - entry));
      }),
    );
  });

  test('tickers: upper-cased, 1 to 15 of A-Z 0-9 . -, first a letter or digit', () => {
    assert.equal(normalizeTicker('aapl'), 'AAPL');
    assert.equal(normalizeTicker('brk.b'), 'BRK.B');
    assert.equal(normalizeTicker('btc-usd'), 'BTC-USD');
    assert.equal(normalizeTicker('A'), 'A');
    assert.equal(normalizeTicker('A'.repeat(15)), 'A'.repeat(15));
    for (const bad of ['', 'A'.repeat(16), '-AAPL', '.X', 'AA PL', 'AAPL$', 'ÄPFEL', '../etc', 'A/B']) {
      assert.equal(normalizeTicker(bad), null, bad);
    }
  });

  test('cancel window: 5 minutes, the last instant included', () => {
    const opened = at('2026-03-02T15:00:00Z');
    assert.equal(cancelableUntil(opened), at('2026-03-02T15:05:00Z'));
    assert.equal(isCancelable(opened, opened + 4 * 60_000 + 59_000), true);
    assert.equal(isCancelable(opened, opened + 5 * 60_000), true);
    assert.equal(isCancelable(opened, opened + 5 * 60_000 + 1), false);
    assert.equal(isCancelable(opened, opened + 5 * 60_000 + 60_000), false);
  });

  test('target_date: today (UTC) allowed, yesterday refused', () => {
    const now = at('2026-03-02T23:59:59Z');
    assert.equal(targetDateProblem('2026-03-02', now), null);
    assert.equal(targetDateProblem('2026-03-03', now), null);
    assert.match(targetDateProblem('2026-03-01', now) ?? '', /past/);
    // Just after midnight UTC the previous day is past even though New York is still on it.
    assert.match(targetDateProblem('2026-03-02', at('2026-03-03T00:00:01Z')) ?? '', /past/);
  });
});

describe('NYSE calendar', () => {
  test('holidays from the table, weekends closed, through 2030', () => {
    for (const d of ['2026-01-01', '2026-04-03', '2026-07-03', '2026-11-26', '2026-12-25', '2027-06-18', '2030-12-25']) {
      assert.equal(calendar.isNyseHoliday(d), true, d);
      assert.equal(calendar.isTradingDay(d), false, d);
    }
    assert.equal(calendar.isTradingDay('2026-03-07'), false, 'Saturday');
    assert.equal(calendar.isTradingDay('2026-03-08'), false, 'Sunday');
    assert.equal(calendar.isTradingDay('2026-03-09'), true, 'Monday');
    assert.equal(calendar.isNyseHoliday('2028-01-01'), false, 'Saturday New Year is not observed on the Friday before');
    assert.ok(calendar.holidaysThrough >= '2030-12-31');
    assert.equal(calendar.tradingDayOnOrAfter('2026-04-03'), '2026-04-06');
    assert.equal(calendar.tradingDayOnOrAfter('2026-12-24'), '2026-12-24');
  });

  test('the calendar follows the table it is given', () => {
    const table = { source: 'test', through: '2026-12-31', holidays: [{ date: '2026-03-09', name: 'a closed Monday' }] };
    const mine = new MarketCalendar(table);
    assert.equal(mine.isTradingDay('2026-03-09'), false);
    assert.equal(mine.isTradingDay('2026-04-03'), true, 'Good Friday is not in this table');
    assert.equal(mine.settlementTime('AAPL', '2026-03-07'), at('2026-03-10T20:00:00Z'), 'Saturday → Tuesday');
  });

  test('market hours 9:30 to 16:00 New York, in winter and in summer time', () => {
    assert.equal(calendar.isMarketOpen(at('2026-03-06T14:29:59Z')), false, '9:29:59 EST');
    assert.equal(calendar.isMarketOpen(at('2026-03-06T14:30:00Z')), true, '9:30 EST');
    assert.equal(calendar.isMarketOpen(at('2026-03-06T20:59:59Z')), true, '15:59:59 EST');
    assert.equal(calendar.isMarketOpen(at('2026-03-06T21:00:00Z')), false, '16:00 EST');
    assert.equal(calendar.isMarketOpen(at('2026-03-09T13:30:00Z')), true, '9:30 EDT');
    assert.equal(calendar.isMarketOpen(at('2026-03-09T20:00:00Z')), false, '16:00 EDT');
    assert.equal(calendar.isMarketOpen(at('2026-04-03T15:00:00Z')), false, 'Good Friday');
  });

  test('marketTime: now while open, else the last close (over weekends and holidays)', () => {
    const open = at('2026-03-06T15:00:00Z');
    assert.equal(calendar.marketTime(open), open);
    assert.equal(calendar.marketTime(at('2026-03-07T12:00:00Z')), at('2026-03-06T21:00:00Z'), 'Saturday → Friday close');
    assert.equal(calendar.marketTime(at('2026-03-09T13:00:00Z')), at('2026-03-06T21:00:00Z'), 'Monday before the open');
    assert.equal(calendar.marketTime(at('2026-04-06T13:00:00Z')), at('2026-04-02T20:00:00Z'), 'after Good Friday → Thursday close');
  });

  test('settlement: first NYSE close on or after the date, across DST and holidays; crypto 00:00 UTC after', () => {
    assert.equal(calendar.settlementTime('AAPL', '2026-03-06'), at('2026-03-06T21:00:00Z'), 'Friday 16:00 EST');
    assert.equal(calendar.settlementTime('AAPL', '2026-03-07'), at('2026-03-09T20:00:00Z'), 'Saturday → Monday 16:00 EDT, after the change');
    assert.equal(calendar.settlementTime('AAPL', '2026-10-31'), at('2026-11-02T21:00:00Z'), 'back to EST in November');
    assert.equal(calendar.settlementTime('SPY', '2026-04-03'), at('2026-04-06T20:00:00Z'), 'Good Friday → Monday');
    assert.equal(calendar.settlementTime('SPY', '2026-12-25'), at('2026-12-28T21:00:00Z'), 'Christmas Friday → Monday');
    assert.equal(calendar.settlementTime('BTC-USD', '2026-03-07'), at('2026-03-08T00:00:00Z'));
    assert.equal(calendar.settlementTime('ETH-USD', '2026-04-03'), at('2026-04-04T00:00:00Z'), 'crypto ignores NYSE holidays');
    assert.equal(isCryptoTicker('BTC-USD'), true);
    assert.equal(isCryptoTicker('BRK.B'), false);
  });
});
