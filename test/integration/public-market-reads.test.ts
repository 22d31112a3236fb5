// Visitors look before they sign up (DESIGN): /instruments, /instruments/{symbol}
// and /price/{ticker}/history answer without a session, limited per address,
// and an anonymous request never makes the service ask the price provider:
// it sees what the shared quote cache already holds. A counting provider
// proves it; SPEC's /price/{ticker} keeps its session.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HistoryRange, PricePoint, QuoteSnapshot } from '../../src/providers/prices/types.js';
import type { InstrumentChartResponse, InstrumentListResponse } from '../../src/schemas/instruments.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

// Wednesday 25 November 2026, 10:00 in New York: NYSE is open.
const OPEN = '2026-11-25T15:00:00Z';

/** The fake provider with snapshots and charts, counting every call of each. */
class CountingProvider extends FakePriceProvider {
  snapshots = 0;
  charts = 0;
  get total(): number {
    return this.calls + this.pastCalls + this.snapshots + this.charts;
  }
  async snapshot(ticker: string): Promise<QuoteSnapshot> {
    this.snapshots++;
    const price = await super.quote(ticker);
    this.calls--; // counted as a snapshot, not a quote
    return { price, at: Date.parse(OPEN), previousClose: price - 1 };
  }
  async history(ticker: string, _range: HistoryRange): Promise<PricePoint[]> {
    this.charts++;
    const price = this.prices.get(ticker);
    if (price === undefined) throw new Error('unknown');
    const at = Date.parse(OPEN);
    return [
      { t: at - 120_000, price: price - 2 },
      { t: at - 60_000, price: price - 1 },
    ];
  }
}

forEachDialect('public market reads', (dialect) => {
  let t: TestApp;
  let user: TestUser;
  const prices = new CountingProvider({ AAPL: 100, MSFT: 400, 'BTC-USD': 50_000 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices } });
    t.clock.set(OPEN);
    user = await registerAndLogin(t.app);
  });
  after(() => t.close());

  const get = (url: string, cookie: string | null = null) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

  test('an empty cache: visitors see the directory and instruments with no quote, and the provider is never asked', async () => {
    const before = prices.total;
    const list = await get('/instruments');
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.headers['cache-control'], 'private, no-store');
    const body = list.json() as InstrumentListResponse;
    assert.equal(body.total, 3);
    assert.deepEqual(body.instruments.map((i) => [i.symbol, i.quote]).sort(), [
      ['AAPL', null],
      ['BTC-USD', null],
      ['MSFT', null],
    ]);
    const chart = await get('/instruments/MSFT?range=5d');
    assert.equal(chart.statusCode, 200, chart.body);
    assert.deepEqual((chart.json() as InstrumentChartResponse).points, []);
    assert.equal((chart.json() as InstrumentChartResponse).instrument.quote, null);
    const history = await get('/price/MSFT/history');
    assert.equal(history.statusCode, 200);
    assert.deepEqual(history.json(), { ticker: 'MSFT', points: [] });
    // A forged or dead cookie is a visitor too, never a 401 here.
    assert.equal((await get('/instruments', 'auth_token=forged')).statusCode, 200);
    assert.equal(prices.total, before, 'no provider call for anonymous reads');
  });

  test("after a signed-in caller's read, visitors see that cached quote and chart, still without a provider call", async () => {
    t.clock.set(OPEN);
    const signedIn = await get('/instruments/AAPL?range=1d', user.cookie);
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const seen = signedIn.json() as InstrumentChartResponse;
    assert.ok(prices.total > 0);
    assert.equal(seen.instrument.quote?.previous_close, 99);
    const before = prices.total;
    const chart = (await get('/instruments/AAPL?range=1d')).json() as InstrumentChartResponse;
    assert.deepEqual(chart.instrument.quote, seen.instrument.quote);
    assert.deepEqual(chart.points, seen.points);
    assert.deepEqual((await get('/price/AAPL/history?range=1d')).json().points, seen.points);
    // Later than the quote cache time: visitors still see the last quote, dated by its as_of (the daily change's
    // reference, cached as long as the quote cache time, has gone).
    t.clock.set(Date.parse(OPEN) + 10 * 60_000);
    const later = (await get('/instruments/AAPL?range=1d')).json() as InstrumentChartResponse;
    const stale = { ...seen.instrument.quote, previous_close: null, change: null, change_percent: null };
    assert.deepEqual(later.instrument.quote, stale);
    const list = (await get('/instruments?q=AAPL')).json() as InstrumentListResponse;
    assert.deepEqual(list.instruments[0].quote, stale);
    // The chart cached a minute has gone, and another range was never charted: the cached quote alone.
    assert.deepEqual(later.points, [seen.points.at(-1)]);
    const other = await get('/price/AAPL/history?range=1y');
    assert.deepEqual(other.json().points, [seen.points.at(-1)]);
    // Many visitors, many pages: still nothing asked.
    for (let i = 0; i < 5; i++) await get('/instruments?limit=50');
    assert.equal(prices.total, before, 'no provider call for anonymous reads');
    // A signed-in caller now gets a fresh quote from the provider, as before.
    await get('/instruments/AAPL', user.cookie);
    assert.ok(prices.total > before);
  });

  test('errors: badly formed 400, unknown 404, without a session as with one', async () => {
    const before = prices.total;
    for (const url of ['/price/-A/history', '/price/AAPL/history?range=2y', '/instruments/-A', '/instruments?limit=51']) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    const unknownHistory = await get('/price/ZZZZ/history');
    assert.equal(unknownHistory.statusCode, 404);
    assert.deepEqual(unknownHistory.json(), { error: 'Unknown ticker ZZZZ' });
    assert.deepEqual((await get('/instruments/ZZZZ')).json(), { error: 'Unknown instrument ZZZZ' });
    assert.equal(prices.total, before, 'junk symbols from visitors cost no provider call');
  });

  test("SPEC's GET /price/{ticker} keeps its session", async () => {
    const before = prices.total;
    const res = await get('/price/AAPL');
    assert.equal(res.statusCode, 401);
    assert.equal(prices.total, before);
  });
});

forEachDialect('public market reads are limited per address', (dialect) => {
  let t: TestApp;
  const prices = new CountingProvider({ AAPL: 100 });
  before(async () => {
    const base = await createTestApp(dialect);
    const rateLimits = { ...base.ctx.config.rateLimits, enabled: true, publicPerMinute: 3 };
    await base.close();
    t = await createTestApp(dialect, { deps: { prices }, config: { rateLimits } });
  });
  after(() => t.close());

  test('each address has its own allowance over the three reads; the 429 carries the error shape', async () => {
    const read = (url: string, remoteAddress: string) => t.app.inject({ method: 'GET', url, remoteAddress });
    for (const url of ['/instruments', '/instruments/AAPL', '/price/AAPL/history']) {
      for (let i = 0; i < 3; i++) assert.equal((await read(url, '10.9.0.1')).statusCode, 200, url);
      const refused = await read(url, '10.9.0.1');
      assert.equal(refused.statusCode, 429, url);
      assert.equal(typeof refused.json().error, 'string');
      assert.equal((await read(url, '10.9.0.2')).statusCode, 200, `${url} from another address`);
    }
    assert.equal(prices.total, 0);
  });
});
