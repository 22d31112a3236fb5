// The bet form's settlement instant (web/src/lib/settlement.ts) against the
// service's own rule (MarketCalendar.settlementTime), on dates that are not
// market holidays, across both daylight-saving changes and weekends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type HolidayTable, MarketCalendar } from '../../src/domain/market-calendar.js';
import { formatDay, formatInstant } from '../../web/src/lib/format.js';
import { isCryptoTicker, settlementHint, settlementInstant, settlementOf } from '../../web/src/lib/settlement.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const table = JSON.parse(fs.readFileSync(path.join(root, 'src/data/nyse-holidays.json'), 'utf8')) as HolidayTable;
const calendar = new MarketCalendar(table);
const holidays = new Set(table.holidays.map((h) => h.date));

describe('the bet form’s settlement instant', () => {
  test('equals the service’s for every non-holiday date of 2026 and 2027, stocks and crypto', () => {
    let checked = 0;
    for (let t = Date.parse('2026-01-01'); t < Date.parse('2028-01-01'); t += 86_400_000) {
      const date = new Date(t).toISOString().slice(0, 10);
      assert.equal(settlementInstant('crypto', date), calendar.settlementTime('BTC-USD', date), `crypto ${date}`);
      // A date whose next weekday is a holiday needs the server's table; the form says so in words.
      const next = [0, 1, 2].map((d) => new Date(t + d * 86_400_000).toISOString().slice(0, 10));
      if (next.some((d) => holidays.has(d))) continue;
      assert.equal(settlementInstant('stock', date), calendar.settlementTime('AAPL', date), `stock ${date}`);
      checked++;
    }
    assert.ok(checked > 600);
  });

  test('the hint names the instant in the user’s zone: crypto at 00:00 UTC after the date, a stock at 4 PM New York', () => {
    // The year shows only when it is not this one (the test may run in another year).
    assert.match(
      settlementHint('crypto', '2026-11-30', 'Asia/Tokyo'),
      /^Settles at Tue 1 Dec( 2026)?, 9:00 AM GMT\+9 \(00:00 UTC after 2026-11-30\)\.$/,
    );
    assert.match(settlementHint('stock', '2026-11-30', 'America/New_York'), /^Settles at Mon 30 Nov( 2026)?, 4:00 PM EST, the NYSE close;/);
    assert.match(settlementHint('stock', '2026-07-01', 'UTC'), /^Settles at Wed 1 Jul( 2026)?, 8:00 PM UTC, the NYSE close;/);
    assert.match(settlementHint('etf', '2026-11-28', 'UTC'), /^Settles at Mon 30 Nov( 2026)?, 9:00 PM UTC, the NYSE close of the next trading day;/);
    assert.match(settlementHint('crypto', ''), /00:00 UTC after its target date/);
    assert.doesNotMatch(settlementHint('crypto', ''), /market close/);
  });

  test('one way of writing an instant and a settlement: "Mon 30 Nov, 4:00 PM EST", the year only when it is not this year', () => {
    const now = Date.parse('2026-11-29T00:00:00Z');
    assert.equal(formatInstant(Date.parse('2026-11-30T21:00:00Z'), 'America/New_York', now), 'Mon 30 Nov, 4:00 PM EST');
    assert.equal(formatInstant(Date.parse('2025-07-04T13:05:00Z'), 'UTC', now), 'Fri 4 Jul 2025, 1:05 PM UTC');
    assert.equal(formatDay('2026-11-30'), 'Mon 30 Nov 2026');
    assert.equal(formatDay('not a date'), 'not a date');
    assert.match(settlementOf('AAPL', '2026-11-28', 'America/New_York'), /^Mon 30 Nov( 2026)?, 4:00 PM EST$/);
    assert.match(settlementOf('BTC-USD', '2026-11-30', 'UTC'), /^Tue 1 Dec( 2026)?, 12:00 AM UTC$/);
    assert.equal(isCryptoTicker('ETH-USDT'), true);
    assert.equal(isCryptoTicker('SPY'), false);
  });
});
