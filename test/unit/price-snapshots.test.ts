// The price service's dated quotes for the instrument directory: shared while
// in flight, cached for the quote cache time, failures not kept, and the last
// known price kept for marks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../../src/lib/clock.js';
import { PriceUnavailableError, type QuoteSnapshot, UnknownTickerError } from '../../src/providers/prices/types.js';
import { CachedPriceService, MemoryPriceStore } from '../../src/services/prices.js';
import { FakePriceProvider } from '../helpers/prices.js';

/** A fake provider that also answers dated quotes, counting them. */
class SnapshotProvider extends FakePriceProvider {
  snapshots = 0;
  async snapshot(ticker: string): Promise<QuoteSnapshot> {
    this.snapshots++;
    const price = await this.quote(ticker);
    return { price, at: 1_000, previousClose: price - 1 };
  }
}

function service(ttlMs = 5000, provider = new SnapshotProvider()) {
  const clock = new FakeClock();
  return { provider, clock, prices: new CachedPriceService({ provider, clock, ttlMs, store: new MemoryPriceStore() }) };
}

describe('price snapshots', () => {
  test('the directory is the provider’s; a provider without one has an empty directory', () => {
    assert.deepEqual(
      service()
        .prices.instruments()
        .map((i) => i.symbol),
      ['AAPL', 'MSFT', 'BTC-USD', 'SPY'],
    );
    const bare = new CachedPriceService({
      provider: { name: 'bare', quote: async () => 1, priceAt: async () => 1 },
      clock: new FakeClock(),
      ttlMs: 0,
      store: new MemoryPriceStore(),
    });
    assert.deepEqual(bare.instruments(), []);
  });

  test('concurrent and repeated requests within the cache time share one provider call; later ones ask again', async () => {
    const { provider, clock, prices } = service(5000);
    provider.hold();
    const all = Promise.all(Array.from({ length: 20 }, () => prices.snapshot('AAPL')));
    await new Promise((r) => setImmediate(r));
    provider.unhold();
    for (const s of await all) assert.deepEqual(s, { price: 100, at: 1_000, previousClose: 99 });
    // Before the last tenth of the cache time, in which a read also publishes the next quote (REFRESH_AHEAD).
    clock.advance(4000);
    await prices.snapshot('AAPL');
    assert.equal(provider.snapshots, 1);
    provider.set('AAPL', 105);
    clock.advance(1001);
    assert.equal((await prices.snapshot('AAPL')).price, 105);
    assert.equal(provider.snapshots, 2);
  });

  test('a failure is not kept, and the last snapshot serves marks while the provider is down', async () => {
    const { provider, clock, prices } = service(5000);
    await prices.snapshot('MSFT');
    clock.advance(10_000);
    provider.failing.add('MSFT');
    await assert.rejects(prices.snapshot('MSFT'), PriceUnavailableError);
    assert.deepEqual(await prices.marks(['MSFT']), new Map([['MSFT', 400]]));
    provider.failing.delete('MSFT');
    assert.equal((await prices.snapshot('MSFT')).price, 400);
  });

  test('unknown tickers are UnknownTickerError and remembered; without snapshots the quote stands, dated now', async () => {
    const { provider, prices } = service(5000);
    await assert.rejects(prices.snapshot('NOPE'), UnknownTickerError);
    const calls = provider.calls;
    await assert.rejects(prices.snapshot('NOPE'), UnknownTickerError);
    assert.equal(provider.calls, calls);

    const plain = service(5000, new FakePriceProvider() as SnapshotProvider);
    assert.deepEqual(await plain.prices.snapshot('SPY'), { price: 500, at: plain.clock.now(), previousClose: null });
  });

  test('cachedSnapshot: what the cache holds, without a provider call; the previous close while its snapshot is cached', async () => {
    const { provider, clock, prices } = service(5000);
    assert.equal(await prices.cachedSnapshot('AAPL'), null, 'nothing published: nothing to show');
    assert.equal(provider.calls + provider.snapshots, 0);
    clock.set(1_000);
    await prices.snapshot('AAPL');
    const calls = provider.calls + provider.snapshots;
    assert.deepEqual(await prices.cachedSnapshot('AAPL'), { price: 100, at: 1_000, previousClose: 99 });
    // Past the cache time: the same quote, dated when published, without its daily change's base.
    clock.advance(60_000);
    assert.deepEqual(await prices.cachedSnapshot('AAPL'), { price: 100, at: 1_000, previousClose: null });
    assert.equal(provider.calls + provider.snapshots, calls, 'never asks the provider');
    // A ticker the provider said is unknown stays unknown from the cache.
    await assert.rejects(prices.snapshot('NOPE'), UnknownTickerError);
    await assert.rejects(prices.cachedSnapshot('NOPE'), UnknownTickerError);
  });

  test('cachedHistory: the chart cached for that range, else null; never a provider call', async () => {
    let charts = 0;
    const provider = Object.assign(new SnapshotProvider(), {
      history: async () => {
        charts++;
        return [{ t: 500, price: 99 }];
      },
    });
    const { prices } = service(5000, provider);
    assert.equal(await prices.cachedHistory('AAPL', '1d'), null);
    assert.equal(charts, 0);
    await prices.history('AAPL', '1d');
    assert.deepEqual(await prices.cachedHistory('AAPL', '1d'), [{ t: 500, price: 99 }]);
    assert.equal(await prices.cachedHistory('AAPL', '5d'), null);
    assert.equal(charts, 1);
  });
});
