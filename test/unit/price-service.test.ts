import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { FakeClock } from '../../src/lib/clock.js';
import { type PricePoint, PriceUnavailableError, UnknownTickerError } from '../../src/providers/prices/types.js';
import { CachedPriceService, MemoryPriceStore, type PriceStore, RedisPriceStore } from '../../src/services/prices.js';
import { REDIS_URL } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

function service(opts: { ttlMs?: number; store?: PriceStore; provider?: FakePriceProvider; clock?: FakeClock } = {}) {
  const provider = opts.provider ?? new FakePriceProvider();
  const clock = opts.clock ?? new FakeClock();
  const prices = new CachedPriceService({ provider, clock, ttlMs: opts.ttlMs ?? 5000, store: opts.store ?? new MemoryPriceStore() });
  return { provider, clock, prices };
}

describe('price service', () => {
  test('caches for the configured time, then asks again', async () => {
    const { provider, clock, prices } = service({ ttlMs: 5000 });
    assert.equal(await prices.current('AAPL'), 100);
    provider.set('AAPL', 101);
    clock.advance(4999);
    assert.equal(await prices.current('AAPL'), 100);
    clock.advance(1);
    assert.equal(await prices.current('AAPL'), 101);
    assert.equal(provider.calls, 2);
  });

  test('a read in the last tenth of the cache time publishes the next quote behind it; its reader does not wait', async () => {
    const { provider, clock, prices } = service({ ttlMs: 5000 });
    assert.equal(await prices.current('AAPL'), 100);
    provider.set('AAPL', 101);
    clock.advance(4499);
    assert.equal(await prices.current('AAPL'), 100);
    assert.equal(provider.calls, 1, 'nothing published before the last tenth');
    clock.advance(1);
    provider.hold();
    // The provider does not answer: readers still get the quote in force, at once, and one publication is under way.
    const reads = await Promise.all(Array.from({ length: 20 }, () => prices.current('AAPL')));
    assert.ok(reads.every((p) => p === 100));
    await new Promise((r) => setImmediate(r));
    assert.equal(provider.calls, 2, 'one publication ahead, whatever the readers');
    // Expired while that publication is under way: readers wait for it rather than ask the provider again.
    clock.advance(500);
    const afterExpiry = prices.current('AAPL');
    await new Promise((r) => setImmediate(r));
    provider.unhold();
    assert.equal(await afterExpiry, 101);
    assert.equal(provider.calls, 2);
    assert.equal(await prices.current('AAPL'), 101);
  });

  test('a publication ahead is logged before it is shown, and its failure is left to the next reader', async () => {
    const logged: Array<{ ticker: string; price: number; at: number }> = [];
    const provider = new FakePriceProvider();
    const clock = new FakeClock();
    const store = new MemoryPriceStore();
    const prices = new CachedPriceService({
      provider,
      clock,
      ttlMs: 1000,
      store,
      log: {
        append: async (ticker, quote) => {
          // The cache still holds the quote in force while the next one is logged.
          assert.equal((await store.get(ticker))?.price, logged.at(-1)?.price);
          logged.push({ ticker, ...quote });
        },
        firstAtOrAfter: async () => null,
      },
    });
    assert.equal(await prices.current('MSFT'), 400);
    provider.set('MSFT', 401);
    clock.advance(950);
    assert.equal(await prices.current('MSFT'), 400);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      logged.map((q) => q.price),
      [400, 401],
    );
    clock.advance(100);
    assert.equal(await prices.current('MSFT'), 401, 'the quote published ahead, in force now');
    provider.failing.add('MSFT');
    // That quote is dated when its publication began (950): its own last tenth starts at 1850.
    clock.advance(800);
    assert.equal(await prices.current('MSFT'), 401, 'its reader is answered although the publication ahead fails');
    await new Promise((r) => setImmediate(r));
    clock.advance(200);
    await assert.rejects(prices.current('MSFT'), PriceUnavailableError, 'expired: the next reader publishes, and hears the failure');
    assert.deepEqual(await prices.marks(['MSFT']), new Map([['MSFT', 401]]), 'marks fall back to the last quote');
  });

  test('single-flight: a hundred concurrent requests for one ticker make one upstream call', async () => {
    const { provider, prices } = service({ ttlMs: 0 });
    provider.hold();
    const all = Promise.all(Array.from({ length: 100 }, () => prices.current('AAPL')));
    await new Promise((r) => setImmediate(r));
    provider.unhold();
    const results = await all;
    assert.equal(provider.calls, 1);
    assert.ok(results.every((p) => p === 100));
  });

  test('unknown tickers and provider failures propagate as their errors; only unknown ones are remembered', async () => {
    const { provider, clock, prices } = service();
    await assert.rejects(prices.current('NOPE'), UnknownTickerError);
    await assert.rejects(prices.current('NOPE'), UnknownTickerError);
    assert.equal(provider.calls, 1, 'a junk symbol costs one provider call a minute');
    provider.set('NOPE', 1);
    clock.advance(60_000);
    await assert.rejects(prices.current('NOPE'), UnknownTickerError, 'remembered for a minute');
    clock.advance(1);
    assert.equal(await prices.current('NOPE'), 1, 'then it is asked again');
    provider.failing.add('MSFT');
    await assert.rejects(prices.current('MSFT'), PriceUnavailableError);
    provider.failing.delete('MSFT');
    assert.equal(await prices.current('MSFT'), 400);
  });

  test('a provider bug becomes PriceUnavailableError, not a crash', async () => {
    const clock = new FakeClock();
    const prices = new CachedPriceService({
      provider: {
        name: 'broken',
        quote: async () => {
          throw new TypeError('boom');
        },
        priceAt: async () => {
          throw new TypeError('boom');
        },
      },
      clock,
      ttlMs: 0,
      store: new MemoryPriceStore(),
    });
    await assert.rejects(prices.current('AAPL'), PriceUnavailableError);
  });

  test('marks: one call per distinct ticker; the last known price when the provider fails; absent when none', async () => {
    const { provider, clock, prices } = service({ ttlMs: 1000 });
    await prices.current('AAPL');
    provider.calls = 0;
    clock.advance(2000);
    provider.failing.add('AAPL');
    provider.failing.add('SPY');
    const marks = await prices.marks(['AAPL', 'AAPL', 'MSFT', 'MSFT', 'SPY', 'NOPE']);
    assert.equal(provider.calls, 4);
    assert.equal(marks.get('AAPL'), 100, 'last known');
    assert.equal(marks.get('MSFT'), 400);
    assert.equal(marks.has('SPY'), false, 'never known');
    assert.equal(marks.has('NOPE'), false);
  });

  test('marks at a past instant: the price that stood then, kept once known; a failure is absent (no stand-in) and asked again', async () => {
    const { provider, clock, prices } = service({ ttlMs: 1000 });
    provider.followClock(clock);
    const end = clock.now();
    provider.set('AAPL', 110);
    clock.advance(60_000);
    provider.set('AAPL', 150);
    await prices.current('AAPL');
    provider.failing.add('MSFT');
    const first = await prices.marksAt(['AAPL', 'AAPL', 'MSFT', 'NOPE'], end);
    assert.deepEqual([...first], [['AAPL', 110]], 'the end instant, not the last known price');
    assert.equal(provider.pastCalls, 3);
    provider.failing.delete('MSFT');
    const second = await prices.marksAt(['AAPL', 'MSFT'], end);
    assert.deepEqual([...second].sort(), [
      ['AAPL', 110],
      ['MSFT', 400],
    ]);
    assert.equal(provider.pastCalls, 4, 'AAPL at that instant was kept; MSFT asked again');
    assert.equal((await prices.marksAt(['AAPL'], clock.now() + 1000)).has('AAPL'), false, 'never ahead of the clock');
  });

  test('history: shared for a minute, failures not kept', async () => {
    const provider = new FakePriceProvider();
    let calls = 0;
    let fail = true;
    const withHistory = Object.assign(provider, {
      history: async (ticker: string) => {
        calls++;
        if (fail) throw new PriceUnavailableError(ticker, 'down');
        return [{ t: 1, price: 2 }];
      },
    });
    const { clock, prices } = service({ provider: withHistory });
    await assert.rejects(prices.history('AAPL', '1d'), PriceUnavailableError);
    fail = false;
    const [a, b] = await Promise.all([prices.history('AAPL', '1d'), prices.history('AAPL', '1d')]);
    assert.deepEqual(a, b);
    assert.equal(calls, 2);
    clock.advance(60_000);
    await prices.history('AAPL', '1d');
    assert.equal(calls, 2);
    clock.advance(1);
    await prices.history('AAPL', '1d');
    assert.equal(calls, 3);
  });

  test('history: a slow load that fails after its minute does not drop the load that replaced it', async () => {
    const provider = new FakePriceProvider();
    const rejects: Array<(err: Error) => void> = [];
    let calls = 0;
    const withHistory = Object.assign(provider, {
      history: () => {
        calls++;
        if (calls === 1) return new Promise<PricePoint[]>((_resolve, reject) => rejects.push(reject));
        return Promise.resolve([{ t: 1, price: 2 }]);
      },
    });
    const { clock, prices } = service({ provider: withHistory });
    const slow = prices.history('AAPL', '1d');
    clock.advance(60_001);
    assert.deepEqual(await prices.history('AAPL', '1d'), [{ t: 1, price: 2 }]);
    rejects[0](new PriceUnavailableError('AAPL', 'late'));
    await assert.rejects(slow, PriceUnavailableError);
    await prices.history('AAPL', '1d');
    assert.equal(calls, 2);
  });

  test('a failing cache store does not stop prices', async () => {
    const store: PriceStore = {
      get: async () => {
        throw new Error('store down');
      },
      put: async () => {
        throw new Error('store down');
      },
    };
    let errors = 0;
    const prices = new CachedPriceService({
      provider: new FakePriceProvider(),
      clock: new FakeClock(),
      ttlMs: 5000,
      store,
      onStoreError: () => errors++,
    });
    assert.equal(await prices.current('AAPL'), 100);
    assert.ok(errors >= 2);
  });

  test('Redis store: instances share the cache and the last known price', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, async () => {
    const redis = new Redis(REDIS_URL as string);
    const prefix = `test-price:${randomBytes(4).toString('hex')}:`;
    try {
      const clock = new FakeClock();
      const a = service({ store: new RedisPriceStore(redis, prefix), clock });
      const b = service({ store: new RedisPriceStore(redis, prefix), clock });
      assert.equal(await a.prices.current('AAPL'), 100);
      assert.equal(await b.prices.current('AAPL'), 100);
      assert.equal(b.provider.calls, 0, "b read a's cached quote");
      clock.advance(10_000);
      b.provider.failing.add('AAPL');
      assert.equal((await b.prices.marks(['AAPL'])).get('AAPL'), 100);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
