// Issue 22, finding 9: an integer in the URL (path or query) is plain ASCII
// digits within the safe integers, never whatever JavaScript's Number() reads
// as one; and every API route refuses query parameters it does not take. The
// web app, /docs, the provider webhooks and the local provider's pages keep
// their own rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { FakePriceProvider } from '../helpers/prices.js';

/** Forms Number() accepts (or that look like digits) and the API must not. */
const BAD_INTEGERS = [
  '0x1',
  '1e0',
  '0b1',
  '0o1',
  '+1',
  ' 1',
  '1 ',
  '1.0',
  '1.',
  'Infinity',
  '-1',
  '-0',
  '1_0',
  '١', // ARABIC-INDIC DIGIT ONE
  '１', // FULLWIDTH DIGIT ONE
  '9007199254740992', // 2^53: past the safe integers
  '99999999999999999999',
];

const refused = (res: LightMyRequestResponse, where: string) => {
  assert.equal(res.statusCode, 400, `${where}: ${res.statusCode} ${res.body}`);
  assert.deepEqual(Object.keys(res.json()), ['error'], where);
};

interface DocOperation {
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

describe('integers in the URL and unknown query parameters', () => {
  let t: TestApp;
  let u: TestUser;
  let betId: number;

  before(async () => {
    t = await createTestApp('sqlite', { deps: { prices: new FakePriceProvider() } });
    u = await registerAndLogin(t.app, 'strict');
    const open = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      payload: { ticker: 'AAPL', direction: 'LONG' },
      headers: { cookie: u.cookie },
    });
    assert.equal(open.statusCode, 200, open.body);
    betId = open.json().bet_id;
  });
  after(() => t.close());

  const get = (url: string, cookie = true) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie: u.cookie } : {} });

  test('a bad integer in a path is 400 in the error shape, on public and session routes', async () => {
    for (const bad of BAD_INTEGERS) {
      const v = encodeURIComponent(bad);
      refused(await get(`/bet/${v}`), `GET /bet/${bad}`);
      refused(await get(`/user/${v}/public`), `GET /user/${bad}/public`);
      refused(await get(`/user/${v}/stats`), `GET /user/${bad}/stats`);
      refused(await get(`/record/user/${v}`), `GET /record/user/${bad}`);
      refused(await t.app.inject({ method: 'DELETE', url: `/bet/${v}`, headers: { cookie: u.cookie } }), `DELETE /bet/${bad}`);
      refused(await t.app.inject({ method: 'POST', url: `/bet/${v}/tail`, headers: { cookie: u.cookie } }), `POST /bet/${bad}/tail`);
    }
  });

  test('a bad integer in a query is 400 in the error shape', async () => {
    for (const bad of [...BAD_INTEGERS, '']) {
      const v = encodeURIComponent(bad);
      refused(await get(`/history?limit=${v}`), `/history?limit=${bad}`);
      refused(await get(`/history?offset=${v}`), `/history?offset=${bad}`);
      refused(await get(`/user/${u.id}/public?limit=${v}`, false), `/user/{id}/public?limit=${bad}`);
      refused(await get(`/feed?offset=${v}`), `/feed?offset=${bad}`);
      refused(await get(`/notifications?limit=${v}`), `/notifications?limit=${bad}`);
      refused(await get(`/leaderboard?min_trades=${v}`, false), `/leaderboard?min_trades=${bad}`);
      refused(await get(`/rankings?min_trades=${v}`, false), `/rankings?min_trades=${bad}`);
    }
    // A repeated parameter arrives as a list: not an integer either.
    refused(await get('/history?limit=1&limit=2'), 'repeated limit');
  });

  test('plain digits still work, leading zeros included, up to the bounds', async () => {
    const bet = await get(`/bet/${betId}`, false);
    assert.equal(bet.statusCode, 200, bet.body);
    assert.equal(bet.json().id, betId);
    assert.equal((await get(`/bet/000${betId}`, false)).json().id, betId);
    assert.equal((await get(`/bet/${Number.MAX_SAFE_INTEGER}`, false)).statusCode, 404);
    assert.equal((await get(`/user/${u.id}/public?limit=1&offset=0`, false)).statusCode, 200);
    const page = await get('/history?limit=500&offset=10000');
    assert.equal(page.statusCode, 200, page.body);
    assert.deepEqual(page.json(), []);
    for (const q of ['limit=0', 'limit=501', 'offset=10001']) refused(await get(`/history?${q}`), `/history?${q}`);
    const cancel = await t.app.inject({ method: 'DELETE', url: `/bet/${betId}`, headers: { cookie: u.cookie } });
    assert.equal(cancel.statusCode, 200, cancel.body);
  });

  test('every documented API operation refuses a query parameter it does not take', async () => {
    const doc = (await get('/openapi.json', false)).json() as { paths: Record<string, Record<string, DocOperation>> };
    // Valid bodies, so that the query is what is refused.
    const bodies: Record<string, unknown> = {
      'POST /register': { username: 'strict_q', email: 'strict_q@example.test', password: 'a perfectly fine passphrase' },
      'POST /login': { email: u.email, password: u.password },
      'POST /bet/open': { ticker: 'AAPL', direction: 'LONG' },
      'POST /bet/close': { bet_id: betId },
      'POST /follow': { followed_id: u.id, action: 'follow' },
      'POST /api/pay/checkout': { price_id: 'local_price_plus_monthly' },
      'POST /me/password': { current_password: u.password, new_password: 'another perfectly fine passphrase' },
      'DELETE /me': { password: u.password },
      'POST /notifications/read': {},
      'POST /me/email': { new_email: 'strict_new@example.test', password: u.password },
      'POST /password/forgot': { email: u.email },
      'POST /password/reset': { token: 'A'.repeat(43), new_password: 'another perfectly fine passphrase' },
      'PUT /me/notice-settings': { email_notices: 'off', digest_hour: 8, time_zone: 'UTC' },
      'POST /leagues': {
        name: 'Strict',
        starts_at: new Date(t.ctx.clock.now() + 86_400_000).toISOString(),
        ends_at: new Date(t.ctx.clock.now() + 8 * 86_400_000).toISOString(),
        visibility: 'private',
        rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
      },
      'POST /leagues/join': { code: 'ABCDEF12' },
      'PATCH /leagues/{id}': { name: 'Renamed' },
      'POST /alerts': { ticker: 'AAPL', kind: 'above', value: 1000 },
      'PUT /bet/{bet_id}/exits': { take_profit: 10 },
      'POST /push/subscriptions': { endpoint: 'https://fcm.googleapis.com/fcm/send/strict', keys: { p256dh: 'p', auth: 'a' } },
    };
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        // The local provider's HTML pages are for browsers and keep their own rules.
        if (Object.values(op.responses).some((r) => r.content?.['text/html'])) continue;
        const key = `${method.toUpperCase()} ${path}`;
        const url = path
          .replace('{bet_id}', String(betId))
          .replace('{user_id}', String(u.id))
          .replace('{ticker}', 'AAPL')
          .replace('{date}', '2026-01-01')
          // A league id: none need exist, the query is refused before any handler runs.
          .replace('{id}', '1')
          .replace('{alert_id}', '1')
          .replace('{symbol}', 'AAPL');
        const known = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        // Required query parameters (an emailed link's token) are given, so that the unknown one is what is refused.
        const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${'A'.repeat(43)}&`);
        const res = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url: `${url}?${required.join('')}unknown_parameter=1`,
          headers: (op.security ?? []).length > 0 ? { cookie: u.cookie } : {},
          ...(op.requestBody ? { payload: bodies[key] as object } : {}),
        });
        assert.equal(res.statusCode, 400, `${key}: ${res.statusCode} ${res.body}`);
        if (method !== 'head') assert.match(res.json().error, /querystring must NOT have additional properties/, key);
        checked++;
        if (known.length === 0) continue;
        // Alongside the parameters it takes, still refused.
        const both = await t.app.inject({ method: 'GET', url: `${url}?${known[0]}=1&unknown_parameter=1`, headers: { cookie: u.cookie } });
        assert.equal(both.statusCode, 400, `${key} with ${known[0]}: ${both.body}`);
      }
    }
    assert.ok(checked > 35, `${checked} operations checked`);
    // The session was not used up by /logout, nor the account by DELETE /me: validation comes first.
    assert.equal((await get('/me')).statusCode, 200);
  });

  test('the web app, /docs and the local provider pages keep accepting query parameters', async () => {
    // The payment provider returns the browser to {web_url}?checkout=success.
    const app = await t.app.inject({ method: 'GET', url: '/app/?checkout=success' });
    assert.notEqual(app.statusCode, 400, app.body);
    const docs = await t.app.inject({ method: 'GET', url: '/docs?x=1' });
    assert.notEqual(docs.statusCode, 400, docs.body);
    // The page itself answers (this user has no plan), not the query check.
    const portal = await get('/pay/local/portal?from=app');
    assert.match(portal.body, /No payment customer found/);
    const link = await get('/chat/local/link/no-such-code?from=app', false);
    assert.equal(link.statusCode, 404, link.body);
  });
});
