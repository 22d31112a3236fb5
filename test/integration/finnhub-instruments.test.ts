// The instrument directory on the Finnhub adapter, against a local stand-in for
// Finnhub (no network): the directory is the shipped universe, quotes and
// candles come from Finnhub, and the chart ends at Finnhub's quote.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { shippedData, testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { FinnhubPriceProvider } from '../../src/providers/prices/finnhub.js';
import { UNIVERSE_INSTRUMENTS } from '../../src/providers/prices/instrument-universe.js';
import { PriceUnavailableError, UnknownTickerError } from '../../src/providers/prices/types.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';

// Wednesday 25 November 2026, 10:00 in New York.
const NOW = Date.parse('2026-11-25T15:00:00Z');
const NOW_S = NOW / 1000;

describe('Finnhub adapter: instrument directory', () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  /** Finnhub's answers by path and symbol. */
  const quotes = new Map<string, unknown>();

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const symbol = url.searchParams.get('symbol') ?? '';
      seen.push(`${url.pathname} ${symbol}`);
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/api/v1/quote') return send(quotes.get(symbol) ?? { c: 0, d: null, dp: null, h: 0, l: 0, o: 0, pc: 0, t: 0 });
      if (url.pathname.endsWith('/candle')) {
        const from = Number(url.searchParams.get('from'));
        // Three candles in the range, the last one later than the quote (an unfinished bar).
        return send({ s: 'ok', t: [from + 600, from + 1200, NOW_S - 30, NOW_S + 60], c: [10, 11, 12, 99] });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    quotes.set('AAPL', { c: 231.5, d: 1, dp: 0.43, h: 232, l: 229, o: 230, pc: 230.5, t: NOW_S - 5 });
    quotes.set('BINANCE:BTCUSDT', { c: 91000, d: -900, dp: -0.98, h: 92000, l: 90000, o: 91900, pc: 91900, t: NOW_S });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const provider = () =>
    new FinnhubPriceProvider({ apiUrl: base, apiKey: 'k', timeoutMs: 2000, clock: new FakeClock(NOW), calendar: shippedData().marketCalendar });

  test("the directory is the shipped universe, with each symbol's exchange", () => {
    const list = provider().instruments();
    assert.equal(list, UNIVERSE_INSTRUMENTS);
    assert.deepEqual(
      list.find((i) => i.symbol === 'SPY'),
      { symbol: 'SPY', name: 'SPDR S&P 500 ETF', kind: 'etf', exchange: 'NYSE Arca' },
    );
  });

  test('a snapshot reads c, pc and t from /quote', async () => {
    assert.deepEqual(await provider().snapshot('AAPL'), { price: 231.5, at: (NOW_S - 5) * 1000, previousClose: 230.5 });
    assert.deepEqual(await provider().snapshot('BTC-USD'), { price: 91000, at: NOW, previousClose: 91900 });
  });

  test('a trade time ahead of our clock or missing reads as now; pc 0 means no previous close', async () => {
    quotes.set('MSFT', { c: 400, pc: 0, t: NOW_S + 3600 });
    assert.deepEqual(await provider().snapshot('MSFT'), { price: 400, at: NOW, previousClose: null });
    quotes.set('MSFT', { c: 400, pc: 390 });
    assert.deepEqual(await provider().snapshot('MSFT'), { price: 400, at: NOW, previousClose: 390 });
  });

  test('unknown and malformed quotes fail as the plain quote does', async () => {
    await assert.rejects(provider().snapshot('ZZZZ'), UnknownTickerError);
    quotes.set('BAD', { c: 'x' });
    await assert.rejects(provider().snapshot('BAD'), PriceUnavailableError);
  });

  describe('through the API (PRICE_PROVIDER=finnhub)', () => {
    let t: TestApp;
    let user: TestUser;
    before(async () => {
      t = await createTestApp('sqlite', {
        config: { prices: { ...testConfig().prices, provider: 'finnhub', finnhubApiKey: 'k', finnhubApiUrl: base } },
        clock: new FakeClock(NOW),
      });
      user = await registerAndLogin(t.app);
    });
    after(() => t.close());
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: user.cookie } });

    test("GET /instruments quotes each listed instrument from Finnhub, with Finnhub's previous close", async () => {
      const res = await get('/instruments?q=apple');
      assert.equal(res.statusCode, 200, res.body);
      const [aapl] = res.json().instruments;
      assert.equal(aapl.symbol, 'AAPL');
      assert.deepEqual(aapl.quote, {
        price: 231.5,
        as_of: new Date((NOW_S - 5) * 1000).toISOString(),
        previous_close: 230.5,
        change: 1,
        change_percent: 0.43,
      });
    });

    test("GET /instruments/{symbol}: Finnhub's candles up to the quote, then the quote as the last point", async () => {
      seen.length = 0;
      const res = await get('/instruments/BTC-USD?range=1d');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body.points.slice(-2), [
        { t: new Date((NOW_S - 30) * 1000).toISOString(), price: 12 },
        { t: new Date(NOW).toISOString(), price: 91000 },
      ]);
      assert.equal(body.instrument.quote.price, 91000);
      assert.ok(seen.includes('/api/v1/crypto/candle BINANCE:BTCUSDT'));
    });
  });
});
