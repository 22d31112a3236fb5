import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shippedData } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { SIMULATED_UNIVERSE, simulatedHistory, simulatedPrice } from '../../src/providers/prices/simulated-market.js';
import { SimulatedPriceProvider } from '../../src/providers/prices/simulated.js';
import { UnknownTickerError } from '../../src/providers/prices/types.js';

const sym = (t: string) => {
  const s = SIMULATED_UNIVERSE.get(t);
  assert.ok(s, t);
  return s;
};
const at = (s: string) => Date.parse(s);
const calendar = shippedData().marketCalendar;

describe('simulated market', () => {
  test('a universe of at least 100 real symbols: stocks, ETFs and crypto pairs', () => {
    assert.ok(SIMULATED_UNIVERSE.size >= 100);
    const kinds = new Set([...SIMULATED_UNIVERSE.values()].map((s) => s.kind));
    assert.deepEqual([...kinds].sort(), ['crypto', 'etf', 'stock']);
    for (const t of ['AAPL', 'MSFT', 'SPY', 'QQQ', 'BTC-USD', 'ETH-USD', 'BRK.B']) sym(t);
    for (const s of SIMULATED_UNIVERSE.values()) {
      assert.match(s.ticker, /^[A-Z0-9][A-Z0-9.-]{0,14}$/);
      assert.ok(s.price > 0 && s.volatility > 0 && s.volatility < 2, s.ticker);
    }
  });

  test('the price is a pure function of (ticker, time): two instances agree', () => {
    const t = at('2026-03-04T16:12:34Z');
    assert.equal(simulatedPrice(sym('AAPL'), t, calendar), simulatedPrice(sym('AAPL'), t, calendar));
    assert.notEqual(simulatedPrice(sym('AAPL'), t, calendar), simulatedPrice(sym('MSFT'), t, calendar));
  });

  test('prices move within minutes in market hours and stay near their level', () => {
    const base = at('2026-03-04T15:00:00Z');
    const seen = new Set<number>();
    for (let m = 0; m < 10; m++) seen.add(simulatedPrice(sym('AAPL'), base + m * 60_000, calendar));
    assert.ok(seen.size >= 5, `only ${seen.size} distinct prices in 10 minutes`);
    for (const s of SIMULATED_UNIVERSE.values()) {
      const p = simulatedPrice(s, base, calendar);
      assert.ok(p > s.price / 3 && p < s.price * 3, `${s.ticker} ${p} far from ${s.price}`);
    }
  });

  test('stocks stand still outside NYSE hours; crypto keeps moving', () => {
    const sat1 = at('2026-03-07T12:00:00Z');
    const sat2 = at('2026-03-07T18:00:00Z');
    assert.equal(simulatedPrice(sym('AAPL'), sat1, calendar), simulatedPrice(sym('AAPL'), sat2, calendar));
    assert.equal(simulatedPrice(sym('AAPL'), sat1, calendar), simulatedPrice(sym('AAPL'), at('2026-03-06T21:00:00Z'), calendar));
    assert.notEqual(simulatedPrice(sym('BTC-USD'), sat1, calendar), simulatedPrice(sym('BTC-USD'), sat2, calendar));
  });

  test('history: oldest first, ending at the current price', () => {
    const now = at('2026-03-04T18:00:00Z');
    for (const range of ['1d', '5d', '1m', '3m', '1y'] as const) {
      const points = simulatedHistory(sym('BTC-USD'), range, now, calendar);
      assert.ok(points.length > 20, range);
      for (let i = 1; i < points.length; i++) assert.ok(points[i].t > points[i - 1].t, range);
      assert.equal(points.at(-1)?.price, simulatedPrice(sym('BTC-USD'), now, calendar));
    }
    const stock = simulatedHistory(sym('AAPL'), '5d', now, calendar);
    assert.ok(stock.length < 5 * 48, 'closed hours collapse');
    const sunday = simulatedHistory(sym('AAPL'), '1d', at('2026-03-08T18:00:00Z'), calendar);
    assert.ok(sunday.length > 50, 'on a weekend the last session still shows');
    assert.equal(sunday.at(-1)?.t, at('2026-03-06T21:00:00Z'));
  });

  test('the provider answers the universe and refuses the rest', async () => {
    const clock = new FakeClock(at('2026-03-04T15:00:00Z'));
    const p = new SimulatedPriceProvider(clock, calendar);
    assert.equal(await p.quote('AAPL'), simulatedPrice(sym('AAPL'), clock.now(), calendar));
    await assert.rejects(p.quote('NOPE'), UnknownTickerError);
  });
});
