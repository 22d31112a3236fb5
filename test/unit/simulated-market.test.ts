// The simulated market: a seeded Brownian motion per instrument (Lévy's
// construction over HMAC-SHA-256 draws). Statistical checks use fixed seeds,
// so they are deterministic; their bounds are several standard errors wide.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig, shippedData, testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import {
  MARKET_ORIGIN,
  SIMULATED_UNIVERSE,
  SimulatedMarket,
  SPAN_LEVELS,
  STEP_MS,
  type WalkCache,
} from '../../src/providers/prices/simulated-market.js';
import { SimulatedPriceProvider } from '../../src/providers/prices/simulated.js';
import { UnknownTickerError } from '../../src/providers/prices/types.js';

const sym = (t: string) => {
  const s = SIMULATED_UNIVERSE.get(t);
  assert.ok(s, t);
  return s;
};
const at = (s: string) => Date.parse(s);
const calendar = shippedData().marketCalendar;
const SEED = 'unit-test-market-seed-0123456789abcdef';
const market = new SimulatedMarket(SEED, calendar);
const SPAN = 2 ** SPAN_LEVELS;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
function variance(xs: number[]): number {
  const m = mean(xs);
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
}
/** Sample correlation of xs[i] with ys[i]. */
function correlation(xs: number[], ys: number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
/** The variance of n samples is within k standard errors of expected (for Gaussian data, SE = σ²·√(2/(n−1))). */
function assertVariance(xs: number[], expected: number, what: string, k = 5): void {
  const v = variance(xs);
  const bound = k * expected * Math.sqrt(2 / (xs.length - 1));
  assert.ok(Math.abs(v - expected) < bound, `${what}: variance ${v}, expected ${expected} ± ${bound}`);
}
/** Successive differences. */
const diffs = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]);

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

  test('deterministic for a seed: two instances agree; another seed gives another market', () => {
    const again = new SimulatedMarket(SEED, calendar);
    const other = new SimulatedMarket('another-market-seed-0123456789abcdef', calendar);
    let differ = 0;
    let total = 0;
    for (const s of SIMULATED_UNIVERSE.values()) {
      for (const t of [at('2026-03-04T16:12:34Z'), at('2026-07-01T14:00:00Z'), at('2025-06-02T15:00:00Z')]) {
        const p = market.price(s, t);
        assert.equal(again.price(s, t), p, s.ticker);
        total++;
        if (other.price(s, t) !== p) differ++;
      }
    }
    assert.ok(differ >= total - 2, `only ${differ} of ${total} prices differ between seeds`);
    assert.notEqual(market.price(sym('AAPL'), at('2026-03-04T16:12:34Z')), market.price(sym('MSFT'), at('2026-03-04T16:12:34Z')));
  });

  test('every symbol is at its typical level at the origin, whatever the seed', () => {
    for (const s of SIMULATED_UNIVERSE.values()) assert.equal(market.price(s, MARKET_ORIGIN), s.price, s.ticker);
  });

  test('a seed shorter than 128 bits is refused; MARKET_SEED is validated; tests use a fixed one', () => {
    assert.throws(() => new SimulatedMarket('short', calendar), /at least 32/);
    assert.throws(() => loadConfig({ MARKET_SEED: 'abc123' }), /MARKET_SEED must be at least 32 characters/);
    assert.equal(loadConfig({ MARKET_SEED: 'f'.repeat(32) }).marketSeed, 'f'.repeat(32));
    assert.equal(loadConfig({}).marketSeed, null);
    assert.equal(testConfig().marketSeed, testConfig().marketSeed);
    assert.ok((testConfig().marketSeed ?? '').length >= 32);
  });

  test('the draws are standard normal (HMAC bytes → two uniforms in (0, 1) → Box-Muller)', () => {
    const zs = Array.from({ length: 20_000 }, (_, i) => market.normal('AAPL', i * 7919 + 1));
    assert.ok(zs.every(Number.isFinite));
    assert.ok(Math.abs(mean(zs)) < 5 / Math.sqrt(zs.length), `mean ${mean(zs)}`);
    assertVariance(zs, 1, 'draws');
    // P(|Z| < 1) = 0.6827, P(|Z| > 2) = 0.0455, P(Z > 0) = 0.5: binomial bounds of 5 SE.
    const share = (f: (z: number) => boolean) => zs.filter(f).length / zs.length;
    const within = (p: number, q: number, what: string) =>
      assert.ok(Math.abs(p - q) < 5 * Math.sqrt((q * (1 - q)) / zs.length), `${what}: ${p} vs ${q}`);
    within(
      share((z) => Math.abs(z) < 1),
      0.6827,
      '|Z| < 1',
    );
    within(
      share((z) => Math.abs(z) > 2),
      0.0455,
      '|Z| > 2',
    );
    within(
      share((z) => z > 0),
      0.5,
      'Z > 0',
    );
  });

  test('increments of successive steps: mean 0, variance 1, lag-1 autocorrelation 0', () => {
    const cache: WalkCache = new Map();
    const n0 = 123_456_789;
    const ws = Array.from({ length: 20_001 }, (_, i) => market.walk('AAPL', n0 + i, cache));
    const d = diffs(ws);
    assert.ok(Math.abs(mean(d)) < 5 / Math.sqrt(d.length), `mean ${mean(d)}`);
    assertVariance(d, 1, 'one-step increments');
    const r1 = correlation(d.slice(1), d.slice(0, -1));
    assert.ok(Math.abs(r1) < 5 / Math.sqrt(d.length), `lag-1 autocorrelation ${r1}`);
    const r2 = correlation(d.slice(2), d.slice(0, -2));
    assert.ok(Math.abs(r2) < 5 / Math.sqrt(d.length), `lag-2 autocorrelation ${r2}`);
  });

  test('increments at coarser scales: variance equal to their length, uncorrelated neighbours', () => {
    for (const len of [60, 3600, 2 ** 20]) {
      const cache: WalkCache = new Map();
      const ws = Array.from({ length: 3001 }, (_, i) => market.walk('BTC-USD', 987_654 + i * len, cache));
      const d = diffs(ws);
      assertVariance(d, len, `increments of ${len} steps`);
      const r1 = correlation(d.slice(1), d.slice(0, -1));
      assert.ok(Math.abs(r1) < 5 / Math.sqrt(d.length), `${len}: lag-1 autocorrelation ${r1}`);
    }
  });

  test('the same law across the origin and span edges (over many tickers)', () => {
    const tickers = Array.from({ length: 1500 }, (_, i) => `T${i}`);
    const caches = new Map(tickers.map((t) => [t, new Map() as WalkCache]));
    const w = (t: string, n: number) => market.walk(t, n, caches.get(t));
    // Pairs of adjacent one-step increments whose common point is an edge of the construction.
    for (const edge of [0, SPAN, -SPAN]) {
      const before = tickers.map((t) => w(t, edge) - w(t, edge - 1));
      const after = tickers.map((t) => w(t, edge + 1) - w(t, edge));
      assertVariance(before, 1, `step into ${edge}`);
      assertVariance(after, 1, `step out of ${edge}`);
      const r = correlation(before, after);
      assert.ok(Math.abs(r) < 5 / Math.sqrt(tickers.length), `correlation across ${edge}: ${r}`);
    }
    // Whole spans, and a value far out in the second span beyond the origin.
    assertVariance(
      tickers.map((t) => w(t, SPAN)),
      SPAN,
      'W(SPAN)',
    );
    assertVariance(
      tickers.map((t) => w(t, -SPAN - 2 ** 30) - w(t, -SPAN)),
      2 ** 30,
      'an increment in the span before the first',
    );
  });

  test('a price costs logarithmic work: one draw per dyadic level, not a replay since the origin', () => {
    const at2030 = at('2030-05-06T15:00:00Z');
    market.draws = 0;
    market.price(sym('BTC-USD'), at2030);
    assert.ok(market.draws <= SPAN_LEVELS + 1, `${market.draws} draws`);
    market.draws = 0;
    market.price(sym('AAPL'), at('1995-05-08T15:00:00Z'));
    assert.ok(market.draws <= SPAN_LEVELS + 1, `${market.draws} draws`);
    // Centuries away only adds one draw per whole span walked.
    market.draws = 0;
    const far = market.price(sym('BTC-USD'), at('2400-01-01T00:00:00Z'));
    assert.ok(far > 0 && Number.isFinite(far));
    assert.ok(market.draws <= SPAN_LEVELS + 4, `${market.draws} draws`);
  });

  test('per-step volatility: log-price moves match each instrument’s annualised volatility', () => {
    // Crypto: one-minute moves around the clock; a year is 365.25 days.
    const btc = sym('BTC-USD');
    const cache: WalkCache = new Map();
    const start = at('2026-05-01T00:00:00Z');
    const logs = Array.from({ length: 6001 }, (_, i) => Math.log(market.exactPrice(btc, start + i * MINUTE, cache)));
    assertVariance(diffs(logs), btc.volatility ** 2 * (MINUTE / (365.25 * 86_400_000)), 'BTC-USD minutes');
    // Stocks: one-minute moves inside sessions; a year is 252 sessions of 6.5 hours.
    const aapl = sym('AAPL');
    const stockCache: WalkCache = new Map();
    const moves: number[] = [];
    for (let day = 0; day < 25; day++) {
      const open = at('2026-04-06T13:30:00Z') + day * 86_400_000;
      if (!calendar.isMarketOpen(open + MINUTE)) continue;
      const ls = Array.from({ length: 390 }, (_, i) => Math.log(market.exactPrice(aapl, open + i * MINUTE, stockCache)));
      moves.push(...diffs(ls));
    }
    assert.ok(moves.length > 6000, `${moves.length} moves`);
    assertVariance(moves, aapl.volatility ** 2 * (MINUTE / (252 * 6.5 * HOUR)), 'AAPL session minutes');
    assert.equal(market.stepVolatility(aapl), aapl.volatility * Math.sqrt(STEP_MS / (252 * 6.5 * HOUR)));
  });

  test('prices move every few seconds in market hours', () => {
    const base = at('2026-03-04T15:00:00Z');
    const seen = new Set<number>();
    for (let s = 0; s < 60; s += 5) seen.add(market.price(sym('AAPL'), base + s * 1000));
    assert.ok(seen.size >= 8, `only ${seen.size} distinct prices in a minute`);
    // Constant within a step: nothing to read between two steps.
    assert.equal(market.price(sym('AAPL'), base + 1), market.price(sym('AAPL'), base + STEP_MS - 1));
  });

  test('stocks stand still outside NYSE hours and resume from the last close; crypto moves around the clock', () => {
    const fridayClose = at('2026-03-06T21:00:00Z');
    const close = market.price(sym('AAPL'), fridayClose);
    for (const t of ['2026-03-06T21:00:01Z', '2026-03-07T12:00:00Z', '2026-03-08T18:00:00Z', '2026-03-09T13:29:59Z', '2026-03-09T13:30:00.500Z']) {
      assert.equal(market.price(sym('AAPL'), at(t)), close, t);
    }
    // Good Friday 2026-04-03: closed all day.
    const thursdayClose = market.price(sym('SPY'), at('2026-04-02T20:00:00Z'));
    assert.equal(market.price(sym('SPY'), at('2026-04-03T15:00:00Z')), thursdayClose);
    assert.equal(market.price(sym('SPY'), at('2026-04-06T13:30:00Z')), thursdayClose);
    // The session's first step starts from the last close; an hour later it has moved.
    assert.notEqual(market.price(sym('AAPL'), at('2026-03-09T14:30:00Z')), close);
    const weekend = new Set<number>();
    for (let h = 0; h < 48; h++) weekend.add(market.price(sym('BTC-USD'), at('2026-03-07T00:00:00Z') + h * HOUR));
    assert.ok(weekend.size >= 46, `BTC-USD took ${weekend.size} distinct prices over a weekend`);
  });

  test('session time: counts only NYSE session milliseconds, agrees with marketTime and with a day-by-day count', () => {
    // Day by day across DST (March 8) and Good Friday: a session day adds 6.5 h, any other day nothing.
    // Noon UTC is before the New York open, so it counts the sessions of the days before it.
    let expected = calendar.sessionTime(at('2026-02-21T12:00:00Z'));
    for (let d = 0; d < 60; d++) {
      const noonUtc = at('2026-02-21T12:00:00Z') + d * 86_400_000;
      const date = new Date(noonUtc).toISOString().slice(0, 10);
      if (calendar.isTradingDay(date)) expected += 6.5 * HOUR;
      assert.equal(calendar.sessionTime(noonUtc + 86_400_000), expected, date);
    }
    for (let i = 0; i < 500; i++) {
      const t = at('2026-01-01T00:00:00Z') + i * 7_777_777;
      assert.equal(calendar.sessionTime(t), calendar.sessionTime(calendar.marketTime(t)), new Date(t).toISOString());
      if (calendar.isMarketOpen(t) && calendar.isMarketOpen(t + MINUTE))
        assert.equal(calendar.sessionTime(t + MINUTE) - calendar.sessionTime(t), MINUTE);
    }
    // One week of sessions across the 1970 epoch the count starts from.
    assert.equal(calendar.sessionTime(at('1970-01-05T12:00:00Z')) - calendar.sessionTime(at('1969-12-29T12:00:00Z')), 5 * 6.5 * HOUR);
  });

  test('history: oldest first, ending at the current price', () => {
    const now = at('2026-03-04T18:00:00Z');
    for (const range of ['1d', '5d', '1m', '3m', '1y'] as const) {
      const points = market.history(sym('BTC-USD'), range, now);
      assert.ok(points.length > 20, range);
      for (let i = 1; i < points.length; i++) assert.ok(points[i].t > points[i - 1].t, range);
      assert.equal(points.at(-1)?.price, market.price(sym('BTC-USD'), now));
      for (const p of points) assert.equal(p.price, market.price(sym('BTC-USD'), p.t), range);
    }
    const stock = market.history(sym('AAPL'), '5d', now);
    assert.ok(stock.length < 5 * 48, 'closed hours collapse');
    const sunday = market.history(sym('AAPL'), '1d', at('2026-03-08T18:00:00Z'));
    assert.ok(sunday.length > 50, 'on a weekend the last session still shows');
    assert.equal(sunday.at(-1)?.t, at('2026-03-06T21:00:00Z'));
  });

  test('the provider answers the universe with its seed and refuses the rest', async () => {
    const clock = new FakeClock(at('2026-03-04T15:00:00Z'));
    const p = new SimulatedPriceProvider(clock, calendar, SEED);
    assert.equal(await p.quote('AAPL'), market.price(sym('AAPL'), clock.now()));
    assert.deepEqual(await p.history('AAPL', '1d'), market.history(sym('AAPL'), '1d', clock.now()));
    await assert.rejects(p.quote('NOPE'), UnknownTickerError);
    const other = new SimulatedPriceProvider(clock, calendar, 'another-market-seed-0123456789abcdef');
    assert.notEqual(await other.quote('AAPL'), await p.quote('AAPL'));
  });
});
