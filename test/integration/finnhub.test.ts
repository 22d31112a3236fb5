// The Finnhub adapter against a local stand-in for Finnhub (no network).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { shippedData } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { FinnhubPriceProvider, finnhubSymbol } from '../../src/providers/prices/finnhub.js';
import { PriceUnavailableError, UnknownTickerError } from '../../src/providers/prices/types.js';

type Handler = (url: URL, req: http.IncomingMessage, res: http.ServerResponse) => void;

describe('Finnhub adapter', () => {
  let server: http.Server;
  let base: string;
  let handler: Handler;
  const seen: Array<{ path: string; symbol: string | null; token: string | undefined }> = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ path: url.pathname, symbol: url.searchParams.get('symbol'), token: req.headers['x-finnhub-token'] as string | undefined });
      handler(url, req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const json =
    (status: number, body: unknown): Handler =>
    (_u, _q, res) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
  const calendar = shippedData().marketCalendar;
  const provider = (timeoutMs = 2000, clock = new FakeClock()) =>
    new FinnhubPriceProvider({ apiUrl: base, apiKey: 'test-key', timeoutMs, clock, calendar });

  test("maps our symbols to Finnhub's", () => {
    assert.equal(finnhubSymbol('BTC-USD'), 'BINANCE:BTCUSDT');
    assert.equal(finnhubSymbol('ETH-USD'), 'BINANCE:ETHUSDT');
    assert.equal(finnhubSymbol('AAPL'), 'AAPL');
    assert.equal(finnhubSymbol('BRK.B'), 'BRK.B');
  });

  test('a quote: GET /quote?symbol=… with the key in a header, price from c', async () => {
    handler = json(200, { c: 231.5, d: 1, dp: 0.4, h: 232, l: 229, o: 230, pc: 230.5, t: 1772463600 });
    seen.length = 0;
    assert.equal(await provider().quote('BTC-USD'), 231.5);
    assert.deepEqual(seen, [{ path: '/api/v1/quote', symbol: 'BINANCE:BTCUSDT', token: 'test-key' }]);
  });

  test('c = 0 is an unknown symbol', async () => {
    handler = json(200, { c: 0, d: null, dp: null, h: 0, l: 0, o: 0, pc: 0, t: 0 });
    await assert.rejects(provider().quote('ZZZZ'), UnknownTickerError);
  });

  test('non-2xx answers are provider failures', async () => {
    for (const status of [401, 403, 429, 500, 502]) {
      handler = json(status, { error: 'nope' });
      await assert.rejects(provider().quote('AAPL'), PriceUnavailableError, String(status));
    }
  });

  test('malformed bodies are provider failures', async () => {
    const bodies: Handler[] = [
      (_u, _q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'),
      json(200, {}),
      json(200, { c: 'ten' }),
      json(200, { c: -5 }),
      json(200, null),
      json(200, [1, 2]),
    ];
    for (const h of bodies) {
      handler = h;
      await assert.rejects(provider().quote('AAPL'), PriceUnavailableError);
    }
  });

  test('a time-out is a provider failure, not a hang', async () => {
    handler = () => undefined; // never answers
    await assert.rejects(provider(200).quote('AAPL'), PriceUnavailableError);
  });

  test('a refused connection is a provider failure', async () => {
    const dead = new FinnhubPriceProvider({ apiUrl: 'http://127.0.0.1:1/api/v1', apiKey: 'k', timeoutMs: 1000, clock: new FakeClock(), calendar });
    await assert.rejects(dead.quote('AAPL'), PriceUnavailableError);
  });

  test('history from the candle endpoints', async () => {
    handler = json(200, { s: 'ok', t: [1772463600, 1772463900], c: [230, 231], o: [], h: [], l: [], v: [] });
    seen.length = 0;
    const points = await provider().history('AAPL', '1d');
    assert.deepEqual(points, [
      { t: 1772463600_000, price: 230 },
      { t: 1772463900_000, price: 231 },
    ]);
    assert.equal(seen[0].path, '/api/v1/stock/candle');
    await provider().history('BTC-USD', '1y');
    assert.equal(seen[1].path, '/api/v1/crypto/candle');
    handler = json(200, { s: 'no_data' });
    await assert.rejects(provider().history('ZZZZ', '1d'), UnknownTickerError);
    handler = json(200, { s: 'ok', t: [1], c: [] });
    await assert.rejects(provider().history('AAPL', '1d'), PriceUnavailableError);
  });

  describe("the price at a past instant (a league's end)", () => {
    const asked: URLSearchParams[] = [];
    const candles =
      (t: number[], c: number[]): Handler =>
      (u, _q, res) => {
        asked.push(u.searchParams);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ s: 'ok', t, c, o: c, h: c, l: c, v: c }));
      };

    test('while the market trades: the close of the last minute finished by the instant', async () => {
      // Monday 2 March 2026, 15:00:30 UTC (10:00:30 in New York): the minute from 14:59 finished, the one from 15:00 had not.
      const at = Date.parse('2026-03-02T15:00:30Z');
      const s = at / 1000 - 30;
      asked.length = 0;
      handler = candles([s - 120, s - 60, s], [230, 231, 232]);
      assert.equal(await provider(2000, new FakeClock(at + 60_000)).priceAt('AAPL', at), 231);
      assert.equal(seen.at(-1)?.path, '/api/v1/stock/candle');
      assert.equal(asked[0].get('resolution'), '1');
      assert.equal(asked[0].get('to'), String(Math.floor(at / 1000)));
      assert.equal(asked[0].get('from'), String(Math.floor(at / 1000) - 3600));
    });

    test('a stock outside market hours: the minutes before the last close', async () => {
      // Saturday 7 March 2026: the last close was Friday 6 March, 16:00 New York time (21:00 UTC).
      const at = Date.parse('2026-03-07T12:00:00Z');
      const close = Date.parse('2026-03-06T21:00:00Z') / 1000;
      asked.length = 0;
      handler = candles([close - 120, close - 60], [240, 241]);
      assert.equal(await provider(2000, new FakeClock(at)).priceAt('AAPL', at), 241);
      assert.equal(asked[0].get('to'), String(close));
    });

    test('crypto trades around the clock: the instant itself', async () => {
      const at = Date.parse('2026-03-07T12:00:00Z');
      asked.length = 0;
      handler = candles([at / 1000 - 60], [91_000]);
      assert.equal(await provider(2000, new FakeClock(at)).priceAt('BTC-USD', at), 91_000);
      assert.equal(seen.at(-1)?.path, '/api/v1/crypto/candle');
      assert.equal(seen.at(-1)?.symbol, 'BINANCE:BTCUSDT');
      assert.equal(asked[0].get('to'), String(at / 1000));
    });

    test('no trade in the hour before, a failure, or an instant ahead of the clock: unavailable', async () => {
      const at = Date.parse('2026-03-02T15:00:00Z');
      handler = json(200, { s: 'no_data' });
      await assert.rejects(provider(2000, new FakeClock(at)).priceAt('AAPL', at), PriceUnavailableError);
      handler = json(500, { error: 'down' });
      await assert.rejects(provider(2000, new FakeClock(at)).priceAt('AAPL', at), PriceUnavailableError);
      const before = seen.length;
      await assert.rejects(provider(2000, new FakeClock(at)).priceAt('AAPL', at + 1000), PriceUnavailableError);
      assert.equal(seen.length, before, 'the future is never asked for');
    });
  });
});
