// Hot cached answers served before routing (src/http/front-answers.ts), over
// real HTTP: the same status, headers and body as the routed answer, fresh
// request ids, invalidation as prompt as the router's, and every case that
// must reach the router reaching it.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { testConfig } from '../../src/config.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function get(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(base + path, init);
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

/** Counts the requests the front answered (the server calls front.serve for every request). */
function countFrontAnswers(app: FastifyInstance): { readonly served: number } {
  const counter = { served: 0 };
  const serve = app.front.serve.bind(app.front);
  app.front.serve = (req, res) => {
    const answered = serve(req, res);
    if (answered) counter.served++;
    return answered;
  };
  return counter;
}

const withoutPerAnswer = ({ 'x-request-id': _id, date: _date, ...rest }: Record<string, string>) => rest;

forEachDialect('front answers', (dialect) => {
  let t: TestApp;
  let base: string;
  let front: { readonly served: number };
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, {
      deps: { prices },
      config: { healthCacheMs: 200, prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 } },
    });
    front = countFrontAnswers(t.app);
    base = await listen(t.app);
  });
  after(() => t.close());

  const closedBet = async (user: TestUser, price: number) => {
    const open = await t.app.inject({ method: 'POST', url: '/bet/open', headers: { cookie: user.cookie }, payload: { ticker: 'AAPL', direction: 'LONG' } });
    assert.equal(open.statusCode, 200, open.body);
    prices.set('AAPL', price);
    try {
      t.clock.advance(60_000);
      const close = await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: user.cookie }, payload: { bet_id: open.json().bet_id } });
      assert.equal(close.statusCode, 200, close.body);
    } finally {
      prices.set('AAPL', 100);
    }
  };

  test('GET / and GET /leaderboard: the answer from the front is the routed answer (status, headers, body)', async () => {
    for (const path of ['/', '/leaderboard', '/leaderboard?period=7d&min_trades=1']) {
      const before = front.served;
      const routed = await get(base, path);
      assert.equal(routed.status, 200, routed.body);
      const fromFront = await get(base, path);
      assert.equal(front.served, before + 1, `${path}: the second request is answered before routing`);
      assert.equal(fromFront.status, 200);
      assert.equal(fromFront.body, routed.body, path);
      assert.deepEqual(withoutPerAnswer(fromFront.headers), withoutPerAnswer(routed.headers), path);
      assert.equal(fromFront.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(fromFront.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('every front answer carries its own request id, and echoes a sane one the caller sent', async () => {
    await get(base, '/leaderboard');
    const before = front.served;
    const a = await get(base, '/leaderboard');
    const b = await get(base, '/leaderboard');
    const echoed = await get(base, '/leaderboard', { headers: { 'x-request-id': 'trace-42.a' } });
    const replaced = await get(base, '/leaderboard', { headers: { 'x-request-id': 'bad id\u00e9' } });
    assert.equal(front.served, before + 4);
    assert.match(a.headers['x-request-id']!, /^[0-9a-f-]{36}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    assert.equal(echoed.headers['x-request-id'], 'trace-42.a');
    assert.match(replaced.headers['x-request-id']!, /^[0-9a-f-]{36}$/);
  });

  test('a close shows on the next leaderboard answer: the front serves nothing the cache dropped', async () => {
    const u = await registerAndLogin(t.app, 'front');
    await get(base, '/leaderboard');
    const cached = await get(base, '/leaderboard');
    assert.equal((JSON.parse(cached.body) as Array<{ id: number }>).some((r) => r.id === u.id), false);
    await closedBet(u, 1_000);
    const before = front.served;
    const after = await get(base, '/leaderboard');
    assert.equal(front.served, before, 'routed: the close dropped the cached answer');
    const row = (JSON.parse(after.body) as Array<{ id: number; total_score: number }>).find((r) => r.id === u.id);
    assert.equal(row?.total_score, 900);
    await get(base, '/leaderboard');
    assert.equal(front.served, before + 1, 'the fresh answer is offered again');
  });

  test('GET / is served from the front only while its health check is fresh', async () => {
    await get(base, '/');
    const before = front.served;
    await get(base, '/');
    assert.equal(front.served, before + 1);
    await new Promise((r) => setTimeout(r, 250));
    await get(base, '/');
    assert.equal(front.served, before + 1, 'the check expired: routed, and checked again');
  });

  test('HEAD, a GET with a body, other URLs and other methods reach the router', async () => {
    await get(base, '/leaderboard');
    const before = front.served;
    const head = await fetch(`${base}/leaderboard`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const withBody = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${base}/leaderboard`, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': '2' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      }, reject);
    });
    assert.equal(withBody, 200);
    assert.equal((await get(base, '/leaderboard?period=bogus')).status, 400);
    assert.equal((await get(base, '/Leaderboard')).status, 404);
    assert.equal((await fetch(`${base}/leaderboard`, { method: 'POST' })).status, 404);
    assert.equal(front.served, before, 'none of these were answered before routing');
  });

  test('an offer that fails is dropped and its request routed: the router answers, the process lives on', async () => {
    const url = '/leaderboard?period=30d';
    await get(base, url);
    const offers = t.app.front.size;
    const now = t.clock.now.bind(t.clock);
    // The 30-day window's key reads the clock: make the front's read (and the router's) fail once.
    let failures = 0;
    t.clock.now = () => {
      if (failures++ < 2) throw new Error('clock broke');
      return now();
    };
    try {
      const before = front.served;
      const res = await get(base, url);
      assert.equal(front.served, before, 'routed');
      assert.equal(res.status, 500);
      assert.deepEqual(Object.keys(JSON.parse(res.body)), ['error']);
      assert.equal(t.app.front.size, offers - 1, 'the failing offer is forgotten');
    } finally {
      t.clock.now = now;
    }
    assert.equal((await get(base, url)).status, 200);
  });

  test('an answer offered on a route that needs a session is never kept: it is the caller\'s own', async () => {
    const reply = { frontOffer: null } as FastifyReply;
    const request = { method: 'GET', raw: { url: '/portfolio' }, routeOptions: { url: '/portfolio', config: { auth: true } } } as unknown as FastifyRequest;
    t.app.front.offer(request, reply, () => Buffer.from('[]'));
    assert.equal(reply.frontOffer, null);
    const publicRequest = { ...request, routeOptions: { url: '/portfolio', config: {} } } as unknown as FastifyRequest;
    t.app.front.offer(publicRequest, reply, () => Buffer.from('[]'));
    assert.notEqual(reply.frontOffer, null, 'the same request on a public route is offered');
  });

  test('front answers are counted in the request metrics under their route', async () => {
    await get(base, '/leaderboard');
    const count = async () => {
      const text = await t.ctx.metrics.registry.metrics();
      const line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes('route="/leaderboard"') && l.includes('status="200"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await count();
    const served = front.served;
    await get(base, '/leaderboard');
    await get(base, '/leaderboard');
    assert.equal(front.served, served + 2);
    assert.equal(await count(), before + 2);
  });
});

forEachDialect('front answers: what keeps requests on the router', (dialect) => {
  test('with per-request logging (info) every request is routed and logged', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await createTestApp(dialect, { deps: { logger: { level: 'info', stream } } });
    try {
      const counter = countFrontAnswers(t.app);
      const base = await listen(t.app);
      for (let i = 0; i < 3; i++) assert.equal((await get(base, '/leaderboard')).status, 200);
      assert.equal(counter.served, 0);
      assert.equal(lines.filter((l) => l.includes('"url":"/leaderboard"') && l.includes('incoming request')).length, 3);
    } finally {
      await t.close();
    }
  });

  test('with rate limits on, public reads are never offered: every request counts against the limit', async () => {
    const t = await createTestApp(dialect, { config: { rateLimits: { ...testConfig().rateLimits, enabled: true, publicPerMinute: 3 } } });
    try {
      const counter = countFrontAnswers(t.app);
      const base = await listen(t.app);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(base, '/leaderboard')).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.equal(counter.served, 0);
      assert.equal(t.app.front.size, 0);
    } finally {
      await t.close();
    }
  });

  test('once the server closes, nothing is answered before routing (Fastify answers, telling the client to close)', async () => {
    const t = await createTestApp(dialect);
    const counter = countFrontAnswers(t.app);
    const base = await listen(t.app);
    await get(base, '/leaderboard');
    await get(base, '/leaderboard');
    assert.equal(counter.served, 1);
    await t.app.close();
    try {
      // A request arriving on a kept-alive connection while closing: the offer and its bytes are still there.
      const req = { method: 'GET', url: '/leaderboard', headers: {} } as IncomingMessage;
      const res = { writeHead: () => assert.fail('answered while closing'), end: () => undefined } as unknown as ServerResponse;
      assert.equal(t.app.front.size, 1);
      assert.equal(t.app.front.serve(req, res), false);
    } finally {
      await t.database.close();
    }
  });
});

forEachDialect('front answers: a price to callers with a known session', (dialect) => {
  let t: TestApp;
  let base: string;
  let front: { readonly served: number };
  const prices = new FakePriceProvider();
  // Sessions are known live in memory only on SQLite (one process owns the table); on PostgreSQL every check is routed.
  const fromFront = dialect === 'sqlite' ? 1 : 0;
  before(async () => {
    t = await createTestApp(dialect, {
      deps: { prices },
      config: { prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 5_000, timeoutMs: 1000 } },
    });
    front = countFrontAnswers(t.app);
    base = await listen(t.app);
  });
  after(() => t.close());

  const price = (user: TestUser | null, ticker = 'AAPL') => get(base, `/price/${ticker}`, user ? { headers: { cookie: user.cookie } } : {});

  test('the answer is the routed one, for every caller whose session the router has seen', async () => {
    const a = await registerAndLogin(t.app, 'pa');
    const b = await registerAndLogin(t.app, 'pb');
    const routed = await price(a);
    assert.equal(routed.status, 200, routed.body);
    assert.deepEqual(JSON.parse(routed.body), { ticker: 'AAPL', price: 100 });
    let before = front.served;
    const again = await price(a);
    assert.equal(front.served, before + fromFront);
    assert.equal(again.status, 200);
    assert.equal(again.body, routed.body);
    assert.deepEqual(withoutPerAnswer(again.headers), withoutPerAnswer(routed.headers));
    // b's session has not been checked yet: routed once, then known.
    before = front.served;
    assert.equal((await price(b)).body, routed.body);
    assert.equal(front.served, before);
    assert.equal((await price(b)).body, routed.body);
    assert.equal(front.served, before + fromFront);
  });

  test('no cookie, a forged one, a logged-out or expired session: routed, 401', async () => {
    const u = await registerAndLogin(t.app, 'pu');
    assert.equal((await price(u)).status, 200);
    assert.equal((await price(u)).status, 200);
    const before = front.served;
    assert.equal((await price(null)).status, 401);
    const [header, , sig] = u.cookie.replace('auth_token=', '').split('.');
    const forged = `auth_token=${header}.${Buffer.from(JSON.stringify({ sub: '1', sid: 'x', exp: 9e9 })).toString('base64url')}.${sig}`;
    assert.equal((await get(base, '/price/AAPL', { headers: { cookie: forged } })).status, 401);
    assert.equal((await get(base, '/price/AAPL', { headers: { cookie: `${u.cookie}x` } })).status, 401);
    assert.equal(front.served, before);

    const out = await registerAndLogin(t.app, 'po');
    await price(out);
    assert.equal((await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: out.cookie } })).statusCode, 200);
    assert.equal((await price(out)).status, 401, 'a logout holds at once');

    const old = await registerAndLogin(t.app, 'pe');
    await price(old);
    t.clock.advance(t.ctx.config.sessionTtlSeconds * 1000);
    const expired = await price(old);
    assert.equal(expired.status, 401);
    assert.deepEqual(JSON.parse(expired.body), { error: 'Authentication required' });
    assert.equal(front.served, before, 'none of these was answered before routing');
  });

  test('a new price shows as soon as the cached one expires; tickers are answered as the router names them', async () => {
    const u = await registerAndLogin(t.app, 'pn');
    await price(u, 'MSFT');
    assert.equal(JSON.parse((await price(u, 'MSFT')).body).price, 400);
    prices.set('MSFT', 410);
    try {
      assert.equal(JSON.parse((await price(u, 'MSFT')).body).price, 400, 'still within the cache time');
      t.clock.advance(5_000);
      let before = front.served;
      assert.equal(JSON.parse((await price(u, 'MSFT')).body).price, 410);
      assert.equal(front.served, before, 'expired: routed, and loaded again');
      assert.equal(JSON.parse((await price(u, 'MSFT')).body).price, 410);
      assert.equal(front.served, before + fromFront);
      before = front.served;
      const lower = await price(u, 'msft');
      assert.deepEqual(JSON.parse(lower.body), { ticker: 'MSFT', price: 410 });
      assert.deepEqual(JSON.parse((await price(u, 'msft')).body), { ticker: 'MSFT', price: 410 });
      assert.equal(front.served, before + fromFront);
    } finally {
      prices.set('MSFT', 400);
    }
  });

  test('errors are never offered: a badly formed ticker 400, an unknown one 404, the provider down 503', async () => {
    const u = await registerAndLogin(t.app, 'pr');
    await price(u);
    const before = front.served;
    for (let i = 0; i < 2; i++) {
      assert.equal((await price(u, 'NOPE')).status, 404);
      assert.equal((await price(u, '-bad')).status, 400);
    }
    prices.failing.add('SPY');
    try {
      for (let i = 0; i < 2; i++) assert.equal((await price(u, 'SPY')).status, 503);
    } finally {
      prices.failing.delete('SPY');
    }
    assert.equal(front.served, before);
  });

  test('a route that needs a session offers only when its answer is the same for every caller', () => {
    const reply = { frontOffer: null } as FastifyReply;
    const request = { method: 'GET', raw: { url: '/price/X' }, routeOptions: { url: '/price/:ticker', config: { auth: true } } } as unknown as FastifyRequest;
    t.app.front.offer(request, reply, () => Buffer.from('{}'), { sameForEverySession: true });
    assert.equal(reply.frontOffer?.url, '/price/X');
    assert.equal(reply.frontOffer?.session, true, 'served only to a known session');
  });
});
