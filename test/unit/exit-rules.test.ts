// Exit rules as pure functions (src/domain/exits.ts) and the trigger engine's
// pass (src/jobs/price-triggers.ts) with fake watchers and prices.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { testConfig } from '../../src/config.js';
import { percentageGain } from '../../src/domain/bets.js';
import { exitLevelsProblem, exitReached, firstCrossing, levelPrice } from '../../src/domain/exits.js';
import { priceTriggersJob, type QuoteWatcher, quotesPerPass } from '../../src/jobs/price-triggers.js';
import { FakeClock } from '../../src/lib/clock.js';

describe('exit rules', () => {
  test('the level price is where the gain from entry is the level, either direction', () => {
    assert.equal(levelPrice('LONG', 100, 5), 105);
    assert.equal(levelPrice('LONG', 100, -10), 90);
    assert.equal(levelPrice('SHORT', 200, -2), 204);
    assert.equal(levelPrice('SHORT', 200, 25), 150);
    fc.assert(
      fc.property(
        fc.constantFrom('LONG' as const, 'SHORT' as const),
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.double({ min: -99, max: 99, noNaN: true }),
        (d, entry, gain) => {
          assert.ok(Math.abs(percentageGain(d, entry, levelPrice(d, entry, gain)) - gain) < 1e-6);
        },
      ),
    );
  });

  test('a price at or beyond a level meets it; between the levels nothing', () => {
    const levels = { stop_loss: -5, take_profit: 10 };
    assert.equal(exitReached('LONG', 100, levels, 95), 'stop_loss', 'at the level');
    assert.equal(exitReached('LONG', 100, levels, 80), 'stop_loss', 'beyond it');
    assert.equal(exitReached('LONG', 100, levels, 96), null);
    assert.equal(exitReached('LONG', 100, levels, 109.9), null);
    assert.equal(exitReached('LONG', 100, levels, 110), 'take_profit');
    assert.equal(exitReached('SHORT', 100, levels, 105), 'stop_loss');
    assert.equal(exitReached('SHORT', 100, levels, 90), 'take_profit');
    assert.equal(exitReached('LONG', 100, { stop_loss: null, take_profit: null }, 1), null);
  });

  test('the first crossing: after the last change (exclusive), before the settlement instant, at the quote', () => {
    const rule = { direction: 'LONG' as const, entry_price: 100, stop_loss: -5, take_profit: null, set_at: 10, settle_at: 100 };
    const q = (at: number, price: number) => ({ at, price });
    assert.equal(firstCrossing(rule, [q(5, 50), q(10, 50)]), null, 'quotes at or before the change do not count');
    assert.deepEqual(
      firstCrossing(rule, [q(10, 50), q(11, 99), q(12, 70), q(13, 94)]),
      { reason: 'stop_loss', quote: q(12, 70) },
      'a gap fills at the quote',
    );
    assert.equal(firstCrossing(rule, [q(11, 99), q(100, 50)]), null, 'the settlement instant is the settlement’s');
  });

  test('a SHORT take-profit must be below 100 %: its gain cannot reach it', () => {
    assert.match(exitLevelsProblem('SHORT', { stop_loss: null, take_profit: 100 }) ?? '', /below 100/);
    assert.equal(exitLevelsProblem('SHORT', { stop_loss: -99, take_profit: 99.99 }), null);
    assert.equal(exitLevelsProblem('LONG', { stop_loss: null, take_profit: 10_000 }), null);
  });
});

describe('the trigger engine’s pass', () => {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  function fakes(live: string[][]) {
    const asked: string[] = [];
    const evaluated: Array<[string, string, number]> = [];
    const watchers: QuoteWatcher[] = live.map((tickers, i) => ({
      name: `w${i}`,
      liveTickers: async () => tickers,
      evaluate: async (mine, until) => {
        for (const ticker of mine) evaluated.push([`w${i}`, ticker, until]);
        return { fired: mine.length, failures: [] };
      },
    }));
    const prices = {
      quote: async (t: string) => {
        asked.push(t);
        return { price: 1, at: 0 };
      },
    };
    return { asked, evaluated, watchers, prices };
  }

  test('only the instruments with live rules are asked for, each once; each watcher evaluates its own, up to now', async () => {
    const clock = new FakeClock();
    clock.set(1_000_000);
    const f = fakes([
      ['AAPL', 'MSFT'],
      ['MSFT', 'BTC-USD'],
    ]);
    const job = priceTriggersJob({ clock, config: testConfig(), prices: f.prices as never }, f.watchers, quiet);
    assert.equal(job.intervalMs, 5000, 'one quote interval (the price cache time)');
    assert.equal(await job.run(new AbortController().signal), 4);
    assert.deepEqual(f.asked, ['AAPL', 'BTC-USD', 'MSFT']);
    assert.deepEqual(f.evaluated.sort(), [
      ['w0', 'AAPL', 1_000_000],
      ['w0', 'MSFT', 1_000_000],
      ['w1', 'BTC-USD', 1_000_000],
      ['w1', 'MSFT', 1_000_000],
    ]);
  });

  test('with Finnhub, as many tickers a pass as the rate allows, in turn; all are still evaluated', async () => {
    const config = testConfig();
    const finnhub = { ...config, prices: { ...config.prices, provider: 'finnhub' as const, triggerQuotesPerMinute: 24 } };
    assert.equal(quotesPerPass(finnhub, 5000), 2, '24 a minute is 2 a 5-second pass');
    assert.equal(quotesPerPass(config, 5000), Number.POSITIVE_INFINITY, 'the simulated market: all');
    const f = fakes([['A', 'B', 'C']]);
    const job = priceTriggersJob({ clock: new FakeClock(), config: finnhub, prices: f.prices as never }, f.watchers, quiet);
    await job.run(new AbortController().signal);
    await job.run(new AbortController().signal);
    assert.deepEqual(f.asked, ['A', 'B', 'A', 'C'], 'A and B, then C and A (in ticker order)');
    assert.equal(f.evaluated.length, 6);
  });

  test("a pass asks every instrument's quote at once, before any rule is evaluated", async () => {
    const f = fakes([['AAPL', 'MSFT'], ['BTC-USD']]);
    let inFlight = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const prices = {
      quote: async (t: string) => {
        f.asked.push(t);
        most = Math.max(most, ++inFlight);
        // Each answer waits until all three were asked: one after another, the pass would never finish.
        if (release.length < 2) await new Promise<void>((r) => release.push(r));
        else for (const r of release) r();
        inFlight--;
        assert.equal(f.evaluated.length, 0, 'no evaluation while a quote is pending');
        return { price: 1, at: 0 };
      },
    };
    const job = priceTriggersJob({ clock: new FakeClock(), config: testConfig(), prices: prices as never }, f.watchers, quiet);
    assert.equal(await job.run(new AbortController().signal), 3);
    assert.equal(most, 3, 'all three in flight together (their publications share one durable commit)');
    assert.deepEqual(f.asked.sort(), ['AAPL', 'BTC-USD', 'MSFT']);
  });

  test('a quote that cannot be had still lets the published ones be evaluated; a failing watcher does not stop the others', async () => {
    const f = fakes([['AAPL'], ['AAPL']]);
    f.watchers[0] = { ...f.watchers[0]!, evaluate: async () => Promise.reject(new Error('boom')) };
    const prices = { quote: async () => Promise.reject(new Error('provider down')) };
    const job = priceTriggersJob({ clock: new FakeClock(), config: testConfig(), prices: prices as never }, f.watchers, quiet);
    assert.equal(await job.run(new AbortController().signal), 1);
  });

  test("a watcher's failures on some tickers are logged with their ticker; its firings still count", async () => {
    const f = fakes([['AAPL', 'MSFT']]);
    const boom = new Error('boom');
    f.watchers[0] = { ...f.watchers[0]!, evaluate: async () => ({ fired: 1, failures: [{ ticker: 'MSFT', err: boom }] }) };
    const errors: unknown[] = [];
    const log = { ...quiet, error: (o: unknown) => errors.push(o) };
    const job = priceTriggersJob({ clock: new FakeClock(), config: testConfig(), prices: f.prices as never }, f.watchers, log);
    assert.equal(await job.run(new AbortController().signal), 1);
    assert.deepEqual(errors, [{ ticker: 'MSFT', watcher: 'w0', err: boom }]);
  });
});
