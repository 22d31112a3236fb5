// GET /price/{ticker}/history (charts, from the simulated market) and the
// public GET /bet/{bet_id}.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('price history and bet detail', (dialect) => {
  let sim: TestApp; // the default, simulated market
  let fake: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    sim = await createTestApp(dialect);
    fake = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 10, baseFollows: 5 } } });
  });
  after(async () => {
    await sim.close();
    await fake.close();
  });

  const get = (t: TestApp, url: string, user?: TestUser) => t.app.inject({ method: 'GET', url, headers: user ? { cookie: user.cookie } : {} });

  test('GET /price/{ticker}/history: points oldest first ending at the current price; every range', async () => {
    const u = await registerAndLogin(sim.app);
    const now = (await get(sim, '/price/btc-usd', u)).json().price;
    for (const range of ['1d', '5d', '1m', '3m', '1y']) {
      const res = await get(sim, `/price/btc-usd/history?range=${range}`, u);
      assert.equal(res.statusCode, 200, range);
      const body = res.json() as { ticker: string; points: Array<{ t: string; price: number }> };
      assert.equal(body.ticker, 'BTC-USD');
      assert.ok(body.points.length > 20, range);
      for (let i = 1; i < body.points.length; i++) assert.ok(body.points[i].t > body.points[i - 1].t);
      assert.equal(body.points.at(-1)?.price, now);
    }
    const dflt = await get(sim, '/price/AAPL/history', u);
    assert.equal(dflt.statusCode, 200);
    assert.deepEqual(Object.keys(dflt.json().points[0]).sort(), ['price', 't']);
  });

  test('GET /price/{ticker}/history: 400 bad range or ticker, 404 unknown, public, 503 without provider history', async () => {
    const u = await registerAndLogin(sim.app);
    for (const url of ['/price/AAPL/history?range=2y', '/price/AAPL/history?range=', '/price/AAPL/history?x=1', '/price/-A/history']) {
      const res = await get(sim, url, u);
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    assert.equal((await get(sim, '/price/NOPE/history', u)).statusCode, 404);
    // Without a session: what the cache holds (test/integration/public-market-reads.test.ts).
    assert.equal((await get(sim, '/price/AAPL/history')).statusCode, 200);
    const f = await registerAndLogin(fake.app);
    const down = await get(fake, '/price/AAPL/history', f);
    assert.equal(down.statusCode, 503);
    assert.match(String(down.headers['retry-after']), /^\d+$/);
  });

  test('GET /bet/{bet_id}: public; OPEN marked to market, then as it ended, with its owner', async () => {
    const u = await registerAndLogin(fake.app);
    const opened = await fake.app.inject({
      method: 'POST',
      url: '/bet/open',
      payload: { ticker: 'AAPL', direction: 'SHORT', target_date: '2026-12-31' },
      headers: { cookie: u.cookie },
    });
    const id = opened.json().bet_id;
    const openedAt = fake.clock.now();
    prices.set('AAPL', 90);
    fake.clock.advance(10_000); // past the price cache
    try {
      const res = await get(fake, `/bet/${id}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        id,
        ticker: 'AAPL',
        direction: 'SHORT',
        entry_price: 100,
        exit_price: 90,
        percentage_gain: 10,
        exit_date: new Date(fake.clock.now()).toISOString(),
        entry_date: new Date(openedAt).toISOString(),
        status: 'OPEN',
        target_date: '2026-12-31',
        user: { id: u.id, username: u.username },
        committed_at: new Date(openedAt + 5 * 60_000).toISOString(),
        committed_price: null,
        ranked_gain: null,
        ranked: 'pending',
        unranked_reason: null,
        close_reason: null,
      });
      await fake.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: id }, headers: { cookie: u.cookie } });
      prices.set('AAPL', 50);
      fake.clock.advance(10_000);
      const closed = (await get(fake, `/bet/${id}`)).json();
      assert.equal(closed.status, 'CLOSED');
      assert.equal(closed.exit_price, 90, 'the exit price stays');
      assert.equal(closed.percentage_gain, 10);
      assert.equal(closed.ranked, 'early', 'closed 10 s after opening, inside its window');
      assert.equal(closed.ranked_gain, null);
      assert.equal(closed.close_reason, 'manual', 'closed by its owner');
    } finally {
      prices.set('AAPL', 100);
    }
  });

  test('GET /bet/{bet_id}: 404 unknown, 400 not an integer', async () => {
    const res = await get(fake, '/bet/99999999');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['error']);
    assert.equal((await get(fake, '/bet/abc')).statusCode, 400);
    assert.equal((await get(fake, '/bet/1.5')).statusCode, 400);
  });

  test('the OpenAPI document declares the 503s with Retry-After and the two extensions', async () => {
    const doc = (await get(sim, '/openapi.json')).json();
    for (const [path, method] of [
      ['/bet/open', 'post'],
      ['/price/{ticker}', 'get'],
      ['/price/{ticker}/history', 'get'],
    ]) {
      // The shared 503 answer, by reference.
      const ref = doc.paths[path][method].responses['503']?.$ref as string;
      const r503 = doc.components.responses[ref.replace('#/components/responses/', '')];
      assert.ok(r503?.headers?.['Retry-After'], `${path} 503 Retry-After`);
      assert.ok(r503.content['application/json'].schema.$ref.endsWith('/Error'));
    }
    assert.ok(doc.paths['/bet/{bet_id}'].get.responses['200'].content['application/json'].schema.$ref.endsWith('/BetDetail'));
    assert.deepEqual(doc.paths['/bet/{bet_id}'].get.security, [], 'public');
    assert.ok(doc.components.schemas.PriceHistoryResponse);
  });

  test('GET /price/{ticker}/history is limited per address as a public read, signed in or not (429, declared)', async () => {
    const base = sim.ctx.config.rateLimits;
    const limited = await createTestApp(dialect, { config: { rateLimits: { ...base, enabled: true, publicPerMinute: 2 } } });
    try {
      const u = await registerAndLogin(limited.app);
      const chart = (user: TestUser | null, address: string) =>
        limited.app.inject({
          method: 'GET',
          url: '/price/AAPL/history?range=5d',
          headers: user ? { cookie: user.cookie } : {},
          remoteAddress: address,
        });
      const codes = [];
      for (const user of [u, null, u]) codes.push((await chart(user, '10.3.0.1')).statusCode);
      assert.deepEqual(codes, [200, 200, 429]);
      assert.equal((await chart(u, '10.3.0.2')).statusCode, 200, 'another address has its own budget');
      const doc = (await get(limited, '/openapi.json')).json();
      assert.ok(doc.paths['/price/{ticker}/history'].get.responses['429'], 'the 429 is in the document');
      assert.deepEqual(doc.paths['/price/{ticker}/history'].get.security, [], 'public');
    } finally {
      await limited.close();
    }
  });

  test('public reads are rate limited per IP when limits are on (429)', async () => {
    const base = sim.ctx.config.rateLimits;
    const limited = await createTestApp(dialect, { config: { rateLimits: { ...base, enabled: true, publicPerMinute: 2 } } });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await get(limited, '/leaderboard')).statusCode);
      assert.deepEqual(codes, [200, 200, 429]);
      assert.deepEqual(Object.keys((await get(limited, '/bet/1')).json()), ['error']);
    } finally {
      await limited.close();
    }
  });
});
