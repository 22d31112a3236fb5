// The price alerts' stock change bases: worked out once a minute for every
// stock, and always the base dailyChangeBase gives at the quote's market time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { dailyChangeBase } from '../../src/domain/instruments.js';
import { stockChangeBases } from '../../src/services/price-alerts.js';

const calendar = testConfig().marketCalendar;
const at = (iso: string) => Date.parse(iso);

describe("price alerts' stock change bases", () => {
  test("equal dailyChangeBase at the quote's market time, across midnights, opens, closes, a weekend and a holiday", () => {
    const base = stockChangeBases(calendar);
    const edges = [
      '2026-11-24T05:00:00Z',
      '2026-11-24T14:30:00Z',
      '2026-11-24T21:00:00Z',
      '2026-11-26T05:00:00Z',
      '2026-11-27T18:00:00Z',
      '2026-11-30T14:30:00Z',
    ];
    const instants = edges.flatMap((e) => [at(e) - 1, at(e), at(e) + 1, at(e) + 59_999]);
    for (let t = at('2026-11-23T00:00:00Z'); t < at('2026-12-01T00:00:00Z'); t += 97_000) instants.push(t);
    for (const t of instants) {
      for (const ticker of ['AAPL', 'SPY']) {
        assert.equal(base(t), dailyChangeBase(calendar, ticker, calendar.marketTime(t)), `${ticker} at ${new Date(t).toISOString()}`);
      }
    }
  });

  test('the calendar is asked once a minute whatever the number of stocks; a day of minutes is kept', () => {
    let asked = 0;
    const counting = new Proxy(calendar, {
      get(target, prop, receiver) {
        if (prop === 'marketTime') {
          return (t: number) => {
            asked++;
            return target.marketTime(t);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const base = stockChangeBases(counting);
    const start = at('2026-11-24T15:00:00Z');
    // 112 stocks' quotes over the same two minutes.
    for (let stock = 0; stock < 112; stock++) for (let s = 0; s < 120; s += 5) base(start + s * 1000);
    assert.equal(asked, 2);
    // A day of later minutes pushes the first one out: it is worked out again.
    for (let m = 2; m <= 1_440; m++) base(start + m * 60_000);
    assert.equal(asked, 1_441);
    base(start + 60_000);
    assert.equal(asked, 1_441, 'the second minute is still kept');
    base(start);
    assert.equal(asked, 1_442, 'the first was dropped');
  });
});
