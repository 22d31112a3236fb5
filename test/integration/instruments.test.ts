// GET /instruments and /instruments/{symbol}: the directory from the price
// provider, its search and paging, market hours, dated quotes, and a chart
// whose last point is the headline quote.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INSTRUMENT_UNIVERSE } from '../../src/providers/prices/instrument-universe.js';
import type { Instrument, InstrumentChartResponse, InstrumentListResponse } from '../../src/schemas/instruments.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

// Wednesday 25 November 2026, 10:00 in New York: NYSE is open.
const OPEN = '2026-11-25T15:00:00Z';
// Saturday 28 November 2026: closed since Friday's close.
const SATURDAY = '2026-11-28T18:00:00Z';

forEachDialect('instrument directory', (dialect) => {
  let t: TestApp;
  let user: TestUser;
  before(async () => {
    t = await createTestApp(dialect);
    // Sessions are dated by the clock: log in at the first moment the tests use.
    t.clock.set(OPEN);
    user = await registerAndLogin(t.app);
  });
  after(() => t.close());

  const get = (url: string, cookie: string | null = user.cookie) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const list = async (url: string): Promise<InstrumentListResponse> => {
    const res = await get(url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const find = (body: InstrumentListResponse, symbol: string): Instrument => {
    const i = body.instruments.find((x) => x.symbol === symbol);
    assert.ok(i, `${symbol} listed`);
    return i;
  };

  test('lists the whole directory in pages of 20 by default, each with market hours and a dated quote', async () => {
    t.clock.set(OPEN);
    const first = await list('/instruments');
    assert.equal(first.total, INSTRUMENT_UNIVERSE.size);
    assert.equal(first.instruments.length, 20);
    const last = await list('/instruments?limit=50&offset=100');
    assert.equal(last.instruments.length, INSTRUMENT_UNIVERSE.size - 100);
    const aapl = find(first, 'AAPL');
    assert.deepEqual(
      { ...aapl, quote: null },
      {
        symbol: 'AAPL',
        name: 'Apple',
        kind: 'stock',
        exchange: 'NASDAQ',
        market: { open: true, next_open: '2026-11-27T14:30:00.000Z', next_close: '2026-11-25T21:00:00.000Z' },
        quote: null,
      },
    );
    assert.ok(aapl.quote);
    assert.equal(aapl.quote.as_of, new Date(OPEN).toISOString());
    assert.ok(aapl.quote.price > 0 && aapl.quote.previous_close !== null && aapl.quote.change !== null);
    assert.equal(Math.round((aapl.quote.price - aapl.quote.previous_close) * 100) / 100, aapl.quote.change);
  });

  test('searches by name or symbol, best match first', async () => {
    t.clock.set(OPEN);
    assert.equal((await list('/instruments?q=apple')).instruments[0]?.symbol, 'AAPL');
    assert.equal((await list('/instruments?q=aapl')).instruments[0]?.symbol, 'AAPL');
    const btc = await list('/instruments?q=bitcoin');
    assert.deepEqual(
      btc.instruments.map((i) => [i.symbol, i.kind, i.exchange]),
      [
        ['BTC-USD', 'crypto', 'Binance'],
        ['BCH-USD', 'crypto', 'Binance'],
      ],
    );
    const etf = find(await list('/instruments?q=SPY'), 'SPY');
    assert.equal(etf.kind, 'etf');
    assert.deepEqual(await list(`/instruments?q=${encodeURIComponent('no such thing')}`), { instruments: [], total: 0 });
  });

  test('outside NYSE hours a stock is closed and quoted at its last close; crypto stays open and current', async () => {
    t.clock.set(SATURDAY);
    const aapl = find(await list('/instruments?q=AAPL'), 'AAPL');
    assert.equal(aapl.market.open, false);
    assert.equal(aapl.market.next_open, '2026-11-30T14:30:00.000Z');
    assert.equal(aapl.quote?.as_of, '2026-11-27T21:00:00.000Z');
    const btc = find(await list('/instruments?q=BTC'), 'BTC-USD');
    assert.deepEqual(btc.market, { open: true, next_open: null, next_close: null });
    assert.equal(btc.quote?.as_of, new Date(SATURDAY).toISOString());
  });

  test("SPEC's /price/{ticker} keeps its shape and agrees with the directory's quote", async () => {
    t.clock.set(OPEN);
    t.clock.advance(3_600_000);
    const price = await get('/price/MSFT');
    assert.equal(price.statusCode, 200);
    const body = price.json();
    assert.deepEqual(Object.keys(body).sort(), ['price', 'ticker']);
    assert.equal(find(await list('/instruments?q=MSFT'), 'MSFT').quote?.price, body.price);
  });

  test('one instrument with its chart: the last point is the quote, in any case of the symbol', async () => {
    for (const when of [OPEN, SATURDAY]) {
      t.clock.set(when);
      for (const [symbol, range] of [
        ['aapl', '5d'],
        ['BTC-USD', '1d'],
        ['SPY', '1m'],
      ] as const) {
        const res = await get(`/instruments/${symbol}?range=${range}`);
        assert.equal(res.statusCode, 200, res.body);
        const body: InstrumentChartResponse = res.json();
        assert.equal(body.instrument.symbol, symbol.toUpperCase());
        assert.equal(body.range, range);
        const last = body.points.at(-1);
        assert.ok(last && body.instrument.quote);
        assert.deepEqual(last, { t: body.instrument.quote.as_of, price: body.instrument.quote.price });
        assert.ok(body.points.length > 10, `${symbol} ${range}: ${body.points.length} points`);
        for (let i = 1; i < body.points.length; i++) assert.ok(body.points[i - 1]!.t < body.points[i]!.t);
      }
    }
    const plain = await get('/instruments/NVDA');
    assert.equal(plain.json().range, '1d');
  });

  test('bad queries are 400 in the error shape', async () => {
    for (const url of [
      `/instruments?q=${'a'.repeat(51)}`,
      '/instruments?limit=0',
      '/instruments?limit=51',
      '/instruments?offset=-1',
      '/instruments?page=2',
      '/instruments/AAPL?range=2d',
      '/instruments/AAPL?extra=1',
      `/instruments/${encodeURIComponent('bad symbol!')}`,
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, url);
      assert.equal(typeof res.json().error, 'string');
    }
  });

  test('a symbol outside the directory is 404', async () => {
    const res = await get('/instruments/ZZZZZ');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { error: 'Unknown instrument ZZZZZ' });
  });

  test('visitors may look (public reads, test/integration/public-market-reads.test.ts), a forged cookie being a visitor', async () => {
    assert.equal((await get('/instruments', null)).statusCode, 200);
    assert.equal((await get('/instruments/AAPL', null)).statusCode, 200);
    assert.equal((await get('/instruments', 'auth_token=forged')).statusCode, 200);
  });
});

forEachDialect('instrument directory with a failing provider', (dialect) => {
  let t: TestApp;
  let user: TestUser;
  const prices = new FakePriceProvider({ AAPL: 100, 'ETH-USD': 3000 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices } });
    t.clock.set(OPEN);
    user = await registerAndLogin(t.app);
  });
  after(() => t.close());
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: user.cookie } });

  test('a provider without snapshots: its quote, dated now, without a daily change', async () => {
    t.clock.set(OPEN);
    const res = await get('/instruments?q=ETH');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().instruments[0].quote, {
      price: 3000,
      as_of: new Date(OPEN).toISOString(),
      previous_close: null,
      change: null,
      change_percent: null,
    });
  });

  test('an instrument whose quote fails is listed without one; its chart is 503 with Retry-After', async () => {
    prices.failing.add('AAPL');
    t.clock.advance(3_600_000);
    try {
      const listed = await get('/instruments');
      assert.equal(listed.statusCode, 200);
      const byName = Object.fromEntries(listed.json().instruments.map((i: Instrument) => [i.symbol, i.quote?.price ?? null]));
      assert.deepEqual(byName, { AAPL: null, 'ETH-USD': 3000 });
      const chart = await get('/instruments/AAPL');
      assert.equal(chart.statusCode, 503);
      assert.equal(chart.headers['retry-after'], '5');
    } finally {
      prices.failing.delete('AAPL');
    }
  });
});
