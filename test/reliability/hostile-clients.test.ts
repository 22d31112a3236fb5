// Hostile clients, in one place: other users' objects (IDOR, swept over every
// operation of the app's own /openapi.json, so a new endpoint is covered the
// day it appears), forged and replayed sessions and provider notifications,
// brute force, scraping, user enumeration, cross-site requests and caching of
// private answers. Slow and oversized clients are in slow-clients.test.ts.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { testConfig } from '../../src/config.js';
import { cookieFrom, createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { together } from '../helpers/barrier.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeStripe, stripeDriver, stripeEvent, WEBHOOK_SECRET as STRIPE_SECRET } from '../helpers/fake-stripe.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import { isLinked, linkCode, postUpdate, textUpdate, WEBHOOK_SECRET as TELEGRAM_SECRET } from '../helpers/messaging.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { assertNoPrivateFields } from '../helpers/users.js';

interface Operation {
  method: string;
  path: string;
  key: string;
  auth: boolean;
  pathParams: string[];
  queryParams: string[];
  bodyIds: string[];
  responses: string[];
}

// The parts of the document the sweep reads.
interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
}

interface DocOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
  responses?: Record<string, unknown>;
}

type Doc = { paths: Record<string, Record<string, DocOperation>>; components: { schemas: Record<string, Schema> } };

/** Every operation of the document, with what it takes. */
function operationsOf(doc: Doc): Operation[] {
  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? doc.components.schemas[String(s.$ref).split('/').pop()!] : s);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || method === 'head') continue;
      const params = op.parameters ?? [];
      const body = resolve(op.requestBody?.content?.['application/json']?.schema);
      ops.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        auth: Array.isArray(op.security) && op.security.length > 0,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyIds: Object.keys(body?.properties ?? {}).filter((k) => k.endsWith('_id')),
        responses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return ops;
}

/**
 * Every operation that names an object by id (in its path or body), and
 * whether only its owner may use it. A new one fails the sweep until it is
 * added here: decide whether another user may read or act on it.
 */
const ID_OPERATIONS: Record<string, { ownerOnly: boolean; why: string }> = {
  'DELETE /bet/{bet_id}': { ownerOnly: true, why: "cancels the caller's own bet" },
  'POST /bet/close': { ownerOnly: true, why: "closes the caller's own bet" },
  'GET /pay/local/checkout/{id}': { ownerOnly: true, why: "the caller's own checkout" },
  'POST /pay/local/checkout/{id}/confirm': { ownerOnly: true, why: "the caller's own checkout" },
  'GET /bet/{bet_id}': { ownerOnly: false, why: 'bets are public, like profiles' },
  'POST /bet/{bet_id}/tail': { ownerOnly: false, why: 'opens a bet of the caller copying a public bet' },
  'POST /bet/{bet_id}/fade': { ownerOnly: false, why: 'opens a bet of the caller opposing a public bet' },
  'PUT /bet/{bet_id}/exits': { ownerOnly: true, why: "sets the caller's own bet's exits; another user's bet is 404 as a missing one" },
  'GET /bet/{bet_id}/exits': { ownerOnly: true, why: "an open bet's exits are private to its owner" },
  'POST /bet/{bet_id}/thesis/hide': { ownerOnly: false, why: 'bets are public; anyone but the owner is refused (403) and nothing changes' },
  'POST /bet/{bet_id}/thesis/report': { ownerOnly: false, why: "a report on another user's public bet, counted once per reporter" },
  'GET /user/{user_id}/public': { ownerOnly: false, why: 'public profile' },
  'GET /user/{user_id}/stats': { ownerOnly: false, why: 'public statistics' },
  'GET /record/user/{user_id}': { ownerOnly: false, why: 'the public verifiable record' },
  'GET /record/days/{date}': { ownerOnly: false, why: 'a public daily root, no user' },
  'GET /price/{ticker}': { ownerOnly: false, why: 'market data, no user' },
  'GET /price/{ticker}/history': { ownerOnly: false, why: 'market data, no user' },
  'GET /chat/local/link/{code}': { ownerOnly: false, why: 'the one-time code is the credential (128 random bits), as in the messaging app' },
  'POST /follow': { ownerOnly: false, why: 'anyone may follow anyone' },
  'POST /api/pay/checkout': { ownerOnly: false, why: 'price_id names a public plan' },
  'POST /pay/local/portal/switch': { ownerOnly: false, why: "price_id names a public plan; it switches the caller's own subscription" },
  'GET /instruments/{symbol}': { ownerOnly: false, why: 'market data, no user' },
  'GET /instruments/{symbol}/consensus': { ownerOnly: false, why: 'counts and summed weights of holders, no user named' },
  'DELETE /push/subscriptions/{id}': { ownerOnly: true, why: "removes one of the caller's own push devices" },
  // The sweep names A's private league: it exists for its members only (docs/leagues.md), so B and
  // an anonymous client get 404 from every path, reads included, never a 403 that says it exists.
  // (A public league's page, board, feed and proof are readable by anyone, by design.)
  'GET /leagues/{id}': { ownerOnly: true, why: "a private league's page: its members only" },
  'GET /leagues/{id}/board': { ownerOnly: true, why: "a private league's board: its members only" },
  'GET /leagues/{id}/feed': { ownerOnly: true, why: "a private league's feed: its members only" },
  'GET /leagues/{id}/proof': { ownerOnly: true, why: "a private league's proof: its members only" },
  'PATCH /leagues/{id}': { ownerOnly: true, why: "edits the owner's league (a member: their own daily standing)" },
  'DELETE /leagues/{id}': { ownerOnly: true, why: "deletes the owner's league" },
  'DELETE /leagues/{id}/members/{user_id}': { ownerOnly: true, why: "removes a member of the owner's league" },
  'POST /leagues/{id}/code': { ownerOnly: true, why: "replaces the owner's invite code" },
  'POST /leagues/{id}/join': { ownerOnly: true, why: 'a private league is joined with its invite code only, never by id' },
  'POST /leagues/{id}/leave': { ownerOnly: true, why: "ends the caller's own membership" },
  'DELETE /alerts/{alert_id}': { ownerOnly: true, why: "removes the caller's own price alert (another's is 404, docs/alerts.md)" },
};

/** Unauthenticated reads that are static documents, not data: not rate limited. */
const UNLIMITED_PUBLIC_READS = new Set([
  'GET /',
  'GET /.well-known/api-catalog',
  'GET /.well-known/oauth-protected-resource',
  'GET /openapi.json',
  'GET /llms.txt',
  'GET /api/pay/plans',
  'GET /chat/local/link/{code}',
]);

/** Public answers that are not about users, whose keys may look private. */
const NOT_USER_DATA = new Set(['GET /openapi.json', 'GET /api/pay/plans']);

const EVIL = { origin: 'https://evil.example' };
/** SPEC's Error shape (the local provider's HTML pages answer a page instead). */
const errorShape = (res: LightMyRequestResponse, status: number, where: string) => {
  assert.equal(res.statusCode, status, `${where}: ${res.body}`);
  if (String(res.headers['content-type']).startsWith('text/html')) return;
  assert.deepEqual(Object.keys(res.json()), ['error'], where);
};

forEachDialect('hostile clients', (dialect) => {
  let t: TestApp;
  let doc: Doc;
  let ops: Operation[];
  let a: TestUser;
  let b: TestUser;
  const prices = new FakePriceProvider();
  /** A's objects, which B tries to reach. */
  const mine = { openBet: 0, closedBet: 0, checkout: '', code: '', league: 0, inviteCode: '', alert: 0, device: 0 };
  const deviceEndpoint = `https://fcm.googleapis.com/fcm/send/${uniqueName('dev')}`;
  const leagueName = 'Alice private league';

  before(async () => {
    t = await createTestApp(dialect, {
      deps: { prices },
      config: {
        rateLimits: {
          enabled: true,
          authPerMinute: 10_000,
          loginFailuresBeforeDelay: 3,
          publicPerMinute: 10_000,
          writesPerMinute: 10_000,
          mailPerClientPerHour: 10_000,
        },
      },
    });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    ops = operationsOf(doc);
    a = await registerAndLogin(t.app, 'alice');
    b = await registerAndLogin(t.app, 'bob');
    const as = (u: TestUser, method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, payload, headers: { cookie: u.cookie } });
    mine.openBet = (await as(a, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).json().bet_id;
    mine.closedBet = (await as(a, 'POST', '/bet/open', { ticker: 'MSFT', direction: 'SHORT' })).json().bet_id;
    assert.equal((await as(a, 'POST', '/bet/close', { bet_id: mine.closedBet })).statusCode, 200);
    const plan = (await t.app.inject({ method: 'GET', url: '/api/pay/plans' })).json().plans[0].price_id;
    mine.checkout = String((await as(a, 'POST', '/api/pay/checkout', { price_id: plan })).json().url)
      .split('/')
      .pop()!;
    mine.code = (await as(a, 'POST', '/chat/link-code')).json().code;
    const day = 86_400_000;
    const created = await as(a, 'POST', '/leagues', {
      name: leagueName,
      starts_at: new Date(t.ctx.clock.now() + day).toISOString(),
      ends_at: new Date(t.ctx.clock.now() + 8 * day).toISOString(),
      visibility: 'private',
      rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
    });
    assert.equal(created.statusCode, 201, created.body);
    mine.league = created.json().id;
    mine.inviteCode = created.json().invite_code;
    mine.alert = (await as(a, 'POST', '/alerts', { ticker: 'AAPL', kind: 'above', value: 1000 })).json().id;
    const keys = {
      p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'),
      auth: Buffer.alloc(16, 2).toString('base64url'),
    };
    mine.device = (await as(a, 'POST', '/push/subscriptions', { endpoint: deviceEndpoint, keys })).json().id;
    assert.ok(mine.openBet && mine.closedBet && mine.checkout && mine.code && mine.league && mine.inviteCode && mine.alert && mine.device);
  });
  after(() => t.close());

  /** The request an operation makes against A's objects. */
  function requestFor(op: Operation): { method: HTTPMethods; url: string; payload?: object } {
    const values: Record<string, string | number> = {
      bet_id: mine.openBet,
      user_id: a.id,
      ticker: 'AAPL',
      symbol: 'AAPL',
      // {id} is A's private league under /leagues, A's push device under /push, A's checkout under the local provider's pages.
      id: op.path.startsWith('/leagues/') ? mine.league : op.path.startsWith('/push/') ? mine.device : mine.checkout,
      code: mine.code,
      alert_id: mine.alert,
      date: '2026-03-01',
    };
    const query: Record<string, string> = { q: a.username };
    let url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      assert.ok(name in values, `${op.key}: no value for the path parameter ${name}: add one to this sweep`);
      return encodeURIComponent(String(values[name]));
    });
    const qs = op.queryParams.filter((q) => q in query).map((q) => `${q}=${encodeURIComponent(query[q]!)}`);
    if (qs.length) url += `?${qs.join('&')}`;
    const bodies: Record<string, object> = {
      'POST /bet/close': { bet_id: mine.openBet },
      'POST /follow': { followed_id: a.id, action: 'follow' },
      'POST /api/pay/checkout': { price_id: 'plan_that_does_not_matter' },
      'POST /pay/local/portal/switch': { price_id: 'plan_that_does_not_matter' },
      'PATCH /leagues/{id}': { name: 'Taken over', visibility: 'public', daily_standing: false },
    };
    return { method: op.method, url, payload: bodies[op.key] };
  }

  /** No answer to anyone but A shows A's email, a password hash or A's session; public ones no private field. */
  function assertNoLeak(res: LightMyRequestResponse, op: Operation, who: string): void {
    const where = `${who} ${op.key} → ${res.statusCode}`;
    assert.ok(!res.body.toLowerCase().includes(a.email.toLowerCase()), `${where} shows A's email`);
    assert.doesNotMatch(res.body, /\$argon2/, `${where} shows a password hash`);
    assert.ok(!res.body.includes(a.cookie.split('=')[1]!), `${where} shows A's session`);
    assert.ok(!res.body.includes(deviceEndpoint), `${where} shows A's push endpoint`);
    // Public data about users carries no private field (the API document names them as schemas, plans carry their extras).
    if (!op.auth && !NOT_USER_DATA.has(op.key) && String(res.headers['content-type']).includes('json')) assertNoPrivateFields(res.json(), where);
  }

  async function aUnchanged(): Promise<void> {
    const bets = await t.ctx.db.selectFrom('bets').select(['id', 'status']).where('user_id', '=', a.id).orderBy('id').execute();
    assert.deepEqual(bets, [
      { id: mine.openBet, status: 'OPEN' },
      { id: mine.closedBet, status: 'CLOSED' },
    ]);
    const user = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.deepEqual([user.pay_subscription_id, user.extra_bets, user.extra_slots, user.deleted_at], [null, 0, 0, null]);
    const checkout = await t.ctx.db.selectFrom('pay_local_checkouts').selectAll().where('id', '=', mine.checkout).executeTakeFirstOrThrow();
    assert.equal(checkout.completed_at, null);
    assert.equal(await isLinked(t, a), false);
    const league = await t.ctx.db.selectFrom('leagues').selectAll().where('id', '=', mine.league).executeTakeFirstOrThrow();
    assert.deepEqual([league.name, league.visibility, league.invite_code], [leagueName, 'private', mine.inviteCode]);
    const members = await t.ctx.db.selectFrom('league_members').select('user_id').where('league_id', '=', mine.league).execute();
    assert.deepEqual(members, [{ user_id: a.id }]);
    const alerts = await t.ctx.db.selectFrom('price_alerts').select(['id', 'user_id']).where('user_id', '=', a.id).execute();
    assert.deepEqual(alerts, [{ id: mine.alert, user_id: a.id }]);
    const devices = await t.ctx.db.selectFrom('push_subscriptions').select(['id', 'endpoint']).where('user_id', '=', a.id).execute();
    assert.deepEqual(devices, [{ id: mine.device, endpoint: deviceEndpoint }]);
    assert.equal((await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: a.cookie } })).statusCode, 200);
  }

  describe('IDOR and leaks: swept over /openapi.json', () => {
    test('every operation taking an id is classified as owner-only or public by design', () => {
      const taking = ops
        .filter((o) => o.pathParams.length > 0 || o.bodyIds.length > 0)
        .map((o) => o.key)
        .sort();
      assert.deepEqual(taking, Object.keys(ID_OPERATIONS).sort());
    });

    test("B and an anonymous client never act on A's objects nor read A's private data", async () => {
      const reads = ops.filter((o) => o.method === 'GET');
      const idOps = ops.filter((o) => o.key in ID_OPERATIONS);
      for (const op of new Set([...reads, ...idOps])) {
        for (const [who, headers] of [
          ['B', { cookie: b.cookie }],
          ['anonymous', {}],
        ] as const) {
          const res = await t.app.inject({ ...requestFor(op), headers });
          assertNoLeak(res, op, who);
          assert.ok(res.statusCode < 500 || op.responses.includes(String(res.statusCode)), `${who} ${op.key}: ${res.statusCode} ${res.body}`);
          if (ID_OPERATIONS[op.key]?.ownerOnly) {
            assert.ok(res.statusCode >= 400, `${who} ${op.key} on A's object: ${res.statusCode} ${res.body}`);
            assert.notEqual(res.statusCode, 403, `${who} ${op.key}: a refusal that says the object exists`);
          }
          // A private league is 404 to a non-member whatever the path (docs/leagues.md); without a session, a write is 401 first.
          if (op.path.startsWith('/leagues/') && (who === 'B' || !op.auth)) assert.equal(res.statusCode, 404, `${who} ${op.key}: ${res.body}`);
        }
      }
      await aUnchanged();
    });

    test("SPEC's answers to B for A's bet: close 400, cancel 404, as for a bet that does not exist", async () => {
      const close = (betId: number) => t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: betId }, headers: { cookie: b.cookie } });
      const cancel = (betId: number) => t.app.inject({ method: 'DELETE', url: `/bet/${betId}`, headers: { cookie: b.cookie } });
      const missing = 2_000_000_000;
      for (const [mineRes, noneRes, status] of [
        [await close(mine.openBet), await close(missing), 400],
        [await cancel(mine.openBet), await cancel(missing), 404],
      ] as const) {
        errorShape(mineRes, status, "A's bet");
        assert.deepEqual(mineRes.json(), noneRes.json(), 'the same answer as for no bet at all');
      }
      await aUnchanged();
    });
  });

  describe('sessions: forged, altered, expired and revoked tokens', () => {
    test('another key, alg none, a changed sub, expired, revoked, garbage → 401 { error } everywhere', async () => {
      const token = a.cookie.slice('auth_token='.length);
      const [h, p, s] = token.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const secret = (await t.ctx.db.selectFrom('settings').select('value').where('key', '=', 'jwt_secret').executeTakeFirstOrThrow()).value;
      const sign = (claims: object, key: string) =>
        new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
      const second = await t.app.inject({ method: 'POST', url: '/login', payload: { email: a.email, password: PASSWORD } });
      const revoked = cookieFrom(second).slice('auth_token='.length);
      assert.equal((await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: `auth_token=${revoked}` } })).statusCode, 200);

      const forged: Array<[string, string]> = [
        ['signed with another key', await sign(payload, 'another secret that is long enough!!')],
        ['alg none', `${enc({ alg: 'none', typ: 'JWT' })}.${p}.`],
        ['alg none, signature kept', `${enc({ alg: 'none', typ: 'JWT' })}.${p}.${s}`],
        ['HS512 header on the HS256 signature', `${enc({ alg: 'HS512', typ: 'JWT' })}.${p}.${s}`],
        ['changed sub, original signature', `${h}.${enc({ ...payload, sub: String(b.id) })}.${s}`],
        ['changed sid, original signature', `${h}.${enc({ ...payload, sid: 'x' })}.${s}`],
        ['tampered signature', `${h}.${p}.${s.slice(0, -2)}${s.endsWith('A') ? 'BB' : 'AA'}`],
        // Even with the real key, a token naming A's session but B's id is refused: the session row decides.
        ["real key, A's session, B's id", await sign({ ...payload, sub: String(b.id) }, secret)],
        ['revoked by logout', revoked],
        ['garbage', 'garbage'],
        ['empty', ''],
        ['three dots of nothing', '..'],
        ['huge', 'x'.repeat(3000)],
        ['unicode', encodeURIComponent('ünïcödé.☃.🙂')],
      ];
      const probes = [
        { method: 'GET' as const, url: '/me' },
        { method: 'GET' as const, url: '/portfolio' },
        { method: 'POST' as const, url: '/bet/open', payload: { ticker: 'AAPL', direction: 'LONG' } },
      ];
      for (const [why, bad] of forged) {
        for (const probe of probes) {
          const res = await t.app.inject({ ...probe, headers: { cookie: `auth_token=${bad}` } });
          errorShape(res, 401, `${why} on ${probe.url}`);
          assert.equal(res.headers['cache-control'], 'no-store');
        }
      }
      const expiry = t.ctx.config.sessionTtlSeconds * 1000 + 1000;
      t.clock.advance(expiry);
      try {
        errorShape(await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: a.cookie } }), 401, 'expired');
      } finally {
        t.clock.advance(-expiry);
      }
      await aUnchanged();
    });
  });

  describe('login: brute force throttled per IP and account, never a lockout of the owner', () => {
    const attempt = (email: string, ip: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/login', remoteAddress: ip, payload: { email, password } });

    test('failures from one IP delay that IP for that account with growing waits; the owner elsewhere logs in', async () => {
      const u = await registerAndLogin(t.app);
      for (let i = 0; i < 3; i++) errorShape(await attempt(u.email, '10.0.0.9', 'wrong password here!'), 401, `failure ${i}`);
      const blocked = await attempt(u.email, '10.0.0.9', PASSWORD);
      errorShape(blocked, 429, 'even the right password waits');
      assert.equal(blocked.headers['retry-after'], '1');
      assert.equal((await attempt(u.email, '10.0.0.10', PASSWORD)).statusCode, 200, 'the owner elsewhere is not locked out');
      t.clock.advance(1000);
      errorShape(await attempt(u.email, '10.0.0.9', 'wrong password again'), 401, 'after the wait, one more try');
      assert.equal((await attempt(u.email, '10.0.0.9', PASSWORD)).headers['retry-after'], '2', 'the wait doubles');
      t.clock.advance(2000);
      assert.equal((await attempt(u.email, '10.0.0.9', PASSWORD)).statusCode, 200, 'after the wait the right password works');
      errorShape(await attempt(u.email, '10.0.0.9', 'wrong password here!'), 401, 'a success forgave the failures');
    });

    test('a burst of parallel guesses gets no more tries than sequential ones', async () => {
      const u = await registerAndLogin(t.app);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { responses } = await together(
        t.app.server as Server,
        Array.from({ length: 12 }, (_, i) => ({
          method: 'POST' as const,
          path: '/login',
          body: { email: u.email, password: `wrong guess number ${i}` },
        })),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 3, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 9, statuses.join(','));
      assert.equal((await attempt(u.email, '10.0.0.11', PASSWORD)).statusCode, 200, 'the owner elsewhere is not locked out');
    });
  });

  describe('no user enumeration', () => {
    test('login: an unknown account and a wrong password answer alike, after the same password work', async () => {
      const u = await registerAndLogin(t.app);
      // Both cost one password verification of the same parameters (so the same time): spied on the hasher.
      const verified: string[] = [];
      const passwords = t.ctx.passwords.hashing;
      const verify = passwords.verify;
      passwords.verify = async (hash: string, password: string) => {
        verified.push(hash.split('$')[3]!);
        return verify.call(passwords, hash, password);
      };
      try {
        const wrong = await attempt2(u.email, `${PASSWORD}!`);
        assert.equal(verified.length, 1);
        const unknown = await attempt2(`${uniqueName()}@nowhere.test`, PASSWORD);
        assert.equal(verified.length, 2);
        assert.equal(verified[0], verified[1]);
        assert.equal(wrong.statusCode, 401);
        assert.equal(unknown.statusCode, 401);
        assert.deepEqual(wrong.json(), unknown.json());
        assert.deepEqual(headerNames(wrong), headerNames(unknown));
      } finally {
        passwords.verify = verify;
      }
      // Throttled alike too.
      for (let i = 0; i < 3; i++) {
        await attempt2(u.email, 'wrong password here!', '10.5.5.5');
        await attempt2('nobody-at-all@nowhere.test', 'wrong password here!', '10.5.5.5');
      }
      const [known, nobody] = [await attempt2(u.email, PASSWORD, '10.5.5.5'), await attempt2('nobody-at-all@nowhere.test', PASSWORD, '10.5.5.5')];
      assert.deepEqual(
        [known.statusCode, known.json(), known.headers['retry-after']],
        [nobody.statusCode, nobody.json(), nobody.headers['retry-after']],
      );
    });

    test("register: a taken username or email is SPEC's 409 naming which (issue 24), behind the per-address limit; any other answer ignores existence", async () => {
      const u = await registerAndLogin(t.app);
      const reg = (body: object) => t.app.inject({ method: 'POST', url: '/register', payload: body });
      const takenName = await reg({ username: u.username, email: `${uniqueName()}@x.test`, password: PASSWORD });
      const takenEmail = await reg({ username: uniqueName(), email: u.email, password: PASSWORD });
      errorShape(takenName, 409, 'taken username');
      assert.deepEqual(takenName.json(), { error: 'Username already exists' });
      assert.deepEqual(takenEmail.json(), { error: 'Email already registered' });
      assert.ok(takenName.headers['x-ratelimit-limit'], 'the answer that tells an address has an account is rate limited per address');
      const weak = '123456789012345';
      const existing = await reg({ username: u.username, email: u.email, password: weak });
      const fresh = await reg({ username: uniqueName(), email: `${uniqueName()}@x.test`, password: weak });
      errorShape(existing, 400, 'weak password, existing account');
      assert.deepEqual(existing.json(), fresh.json(), 'validation comes before existence');
    });

    function attempt2(email: string, password: string, ip = '10.4.4.4') {
      return t.app.inject({ method: 'POST', url: '/login', remoteAddress: ip, payload: { email, password } });
    }
    const headerNames = (res: LightMyRequestResponse) => Object.keys(res.headers).sort();
  });

  describe('cross-site requests', () => {
    test('every state-changing operation refuses another site, with or without the session cookie', async () => {
      const unsafe = ops.filter((o) => o.method !== 'GET');
      assert.ok(unsafe.some((o) => o.key === 'POST /login') && unsafe.some((o) => o.key === 'DELETE /bet/{bet_id}'));
      for (const op of unsafe) {
        const req = requestFor(op);
        for (const [why, headers] of [
          ['Origin of another site', { cookie: a.cookie, ...EVIL }],
          ['Sec-Fetch-Site: cross-site', { cookie: a.cookie, 'sec-fetch-site': 'cross-site' }],
          ['Origin: null', { cookie: a.cookie, origin: 'null' }],
          ['no cookie, another site', { ...EVIL }],
        ] as const) {
          const res = await t.app.inject({ ...req, payload: req.payload ?? { password: PASSWORD, email: a.email }, headers });
          errorShape(res, 403, `${op.key} with ${why}`);
        }
      }
      await aUnchanged();
    });

    test('the site itself and clients that are not browsers are served', async () => {
      const u = await registerAndLogin(t.app);
      const same = await t.app.inject({
        method: 'POST',
        url: '/bet/open',
        payload: { ticker: 'AAPL', direction: 'LONG' },
        headers: { cookie: u.cookie, origin: t.ctx.config.trustedOrigins[0]!, 'sec-fetch-site': 'same-origin' },
      });
      assert.equal(same.statusCode, 200, same.body);
      const plain = await t.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: PASSWORD } });
      assert.equal(plain.statusCode, 200);
    });
  });

  describe('caching of private answers', () => {
    test('every operation needing the session answers Cache-Control: no-store, also its 401; public documents stay cacheable', async () => {
      for (const op of ops.filter((o) => o.auth)) {
        const req = requestFor(op);
        const anonymous = await t.app.inject({ ...req, headers: {} });
        assert.equal(anonymous.statusCode, 401, op.key);
        assert.equal(anonymous.headers['cache-control'], 'no-store', `${op.key} 401`);
        if (op.method !== 'GET') continue;
        const res = await t.app.inject({ ...req, headers: { cookie: b.cookie } });
        assert.equal(res.headers['cache-control'], 'no-store', `${op.key} ${res.statusCode}`);
      }
      const login = await t.app.inject({ method: 'POST', url: '/login', payload: { email: b.email, password: PASSWORD } });
      assert.equal(login.headers['cache-control'], 'no-store', 'the answer setting the cookie');
      const catalog = await t.app.inject({ method: 'GET', url: '/.well-known/api-catalog' });
      assert.equal(catalog.headers['cache-control'], undefined);
    });
  });

  describe('provider notifications', () => {
    /** The app with both providers configured. */
    let p: TestApp;
    const fake = new FakeStripe();
    const bot = new FakeTelegram();
    const stripe = stripeDriver(() => p, fake);
    before(async () => {
      await Promise.all([fake.start(), bot.start()]);
      p = await createTestApp(dialect, {
        config: {
          stripe: { secretKey: 'sk_test_fake', webhookSecret: STRIPE_SECRET, apiUrl: fake.url },
          telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: TELEGRAM_SECRET, apiUrl: bot.url },
        },
      });
    });
    after(async () => {
      await p.close();
      await Promise.all([fake.stop(), bot.stop()]);
    });
    const me = async (u: TestUser) => (await p.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).json();
    const base = () => ({ bet_capacity: p.ctx.config.capacities.baseBets, follow_capacity: p.ctx.config.capacities.baseFollows });
    const plain = (u: TestUser) => ({ id: u.id, username: u.username, email: u.email, ...base(), pay_subscription_id: null });

    test('Stripe: forged, stale, unsigned or altered deliveries are 400 and change nothing', async () => {
      const { u, sub } = await stripe.customerWithSubscription();
      const event = stripe.completed(sub, u);
      const payload = JSON.stringify(event);
      const now = stripe.nowSeconds();
      errorShape(await stripe.deliver(event, { secret: 'whsec_someone_else' }), 400, 'forged');
      errorShape(await stripe.deliver(event, { timestamp: now - 301 }), 400, 'stale');
      errorShape(await stripe.deliver(event, { timestamp: now + 100_000, secret: 'whsec_x' }), 400, 'forged, from the future');
      const altered = payload.replace(`"${sub.id}"`, `"${sub.id.slice(0, -1)}X"`);
      assert.equal(altered.length, payload.length);
      errorShape(await stripe.deliver(event, { body: altered }), 400, 'altered');
      const unsigned = await p.app.inject({ method: 'POST', url: '/api/pay/webhook', payload, headers: { 'content-type': 'application/json' } });
      errorShape(unsigned, 400, 'unsigned');
      assert.deepEqual(await me(u), plain(u));
      assert.equal(
        (
          await p.ctx.db
            .selectFrom('pay_events')
            .select('event_id')
            .where('event_id', '=', event.id as string)
            .execute()
        ).length,
        0,
      );
      // None of them was recorded: the genuine delivery still applies (within the tolerance).
      assert.equal((await stripe.deliver(event, { timestamp: now - 299 })).statusCode, 200);
      assert.equal((await me(u)).pay_subscription_id, sub.id);
    });

    test('Stripe: a replay of a processed event is acknowledged and not applied again', async () => {
      const { u, sub } = await stripe.customerWithSubscription();
      const event = stripe.completed(sub, u);
      assert.equal((await stripe.deliver(event)).statusCode, 200);
      assert.equal((await me(u)).pay_subscription_id, sub.id);
      // The same event again after the subscription ended: not applied a second time, Stripe not even asked.
      sub.status = 'canceled';
      const reads = fake.calls('GET', `/v1/subscriptions/${sub.id}`).length;
      const replay = await stripe.deliver(event);
      assert.deepEqual([replay.statusCode, replay.json()], [200, { received: true }]);
      assert.equal(fake.calls('GET', `/v1/subscriptions/${sub.id}`).length, reads);
      assert.equal((await me(u)).pay_subscription_id, sub.id);
      // (Concurrent deliveries of one event: races.test.ts.)
    });

    test("Stripe: out-of-order delivery ends in Stripe's current state", async () => {
      // Deleted arrives before created: both read the subscription as it is now (canceled).
      const { u, sub } = await stripe.customerWithSubscription('canceled');
      assert.equal((await stripe.deliver(stripe.subEvent('customer.subscription.deleted', sub))).statusCode, 200);
      assert.equal((await stripe.deliver(stripe.subEvent('customer.subscription.created', { ...sub, status: 'active' }))).statusCode, 200);
      assert.deepEqual(await me(u), plain(u));

      // Deleted arrives before updated: the late "updated" does not bring the plan back.
      const { u: d, sub: gone } = await stripe.customerWithSubscription('active');
      await stripe.deliver(stripe.completed(gone, d));
      const staleUpdate = stripe.subEvent('customer.subscription.updated', gone);
      gone.status = 'canceled';
      await stripe.deliver(stripe.subEvent('customer.subscription.deleted', gone));
      await stripe.deliver(staleUpdate);
      assert.deepEqual(await me(d), plain(d));

      // An old "past_due" update arriving after the payment went through leaves the plan in place.
      const { u: v, sub: s2 } = await stripe.customerWithSubscription('active', 'price_plus');
      assert.equal((await stripe.deliver(stripe.subEvent('customer.subscription.updated', { ...s2, status: 'past_due' }))).statusCode, 200);
      assert.equal((await me(v)).bet_capacity, base().bet_capacity + 10);
      assert.equal((await me(v)).follow_capacity, base().follow_capacity + 5);

      // A late event about the user's previous, ended subscription does not undo the new one.
      const { u: w, sub: old } = await stripe.customerWithSubscription('active');
      await stripe.deliver(stripe.completed(old, w));
      old.status = 'canceled';
      await stripe.deliver(stripe.subEvent('customer.subscription.deleted', old));
      const fresh = { id: `sub_new_${w.id}`, customer: old.customer, status: 'active', priceId: 'price_plus', metadata: { user_id: String(w.id) } };
      fake.subscriptions.set(fresh.id, fresh);
      await stripe.deliver(stripe.completed(fresh, w));
      await stripe.deliver(stripe.subEvent('customer.subscription.updated', old));
      const now = await me(w);
      assert.equal(now.pay_subscription_id, fresh.id);
      assert.equal(now.bet_capacity, base().bet_capacity + 10);
    });

    test('Stripe: an event for a customer nobody has changes nobody', async () => {
      const stranger = { id: 'sub_stranger', customer: 'cus_stranger', status: 'active', priceId: 'price_pro', metadata: {} };
      fake.subscriptions.set(stranger.id, stranger);
      const res = await stripe.deliver(
        stripeEvent('customer.subscription.created', { id: stranger.id, object: 'subscription', customer: stranger.customer, status: 'active' }),
      );
      assert.equal(res.statusCode, 200);
      const raised = await p.ctx.db.selectFrom('users').select('id').where('pay_subscription_id', '=', stranger.id).execute();
      assert.deepEqual(raised, []);
    });

    test('Telegram: a webhook call without, or with a wrong, secret header is 401 and changes nothing', async () => {
      const u = await registerAndLogin(p.app);
      const { code } = await linkCode(p, u);
      const chat = 7_700_001;
      for (const secret of [null, 'wrong-secret', `${TELEGRAM_SECRET}x`, TELEGRAM_SECRET.slice(0, -1), '']) {
        const res = await postUpdate(p, textUpdate(chat, `/start ${code}`), secret);
        errorShape(res, 401, `secret ${JSON.stringify(secret)}`);
      }
      assert.equal(await isLinked(p, u), false);
      // The code was not used up: it still links.
      assert.equal((await postUpdate(p, textUpdate(chat, `/start ${code}`))).statusCode, 200);
      assert.equal(await isLinked(p, u), true);
    });
  });
});

describe('per-IP rate limits (low limits configured)', () => {
  let t: TestApp;
  let doc: Doc;
  before(async () => {
    t = await createTestApp('sqlite', {
      deps: { prices: new FakePriceProvider() },
      config: { rateLimits: { ...testConfig().rateLimits, enabled: true, authPerMinute: 3, publicPerMinute: 3, loginFailuresBeforeDelay: 100 } },
    });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(() => t.close());

  test('the leaderboard and every public data read: 429 { error } with Retry-After past the limit, per client address', async () => {
    const u = await registerAndLogin(t.app);
    const bet = (
      await t.app.inject({ method: 'POST', url: '/bet/open', payload: { ticker: 'AAPL', direction: 'LONG' }, headers: { cookie: u.cookie } })
    ).json().bet_id;
    const day = 86_400_000;
    const league = (
      await t.app.inject({
        method: 'POST',
        url: '/leagues',
        headers: { cookie: u.cookie },
        payload: {
          name: 'Open to all',
          starts_at: new Date(t.ctx.clock.now() + day).toISOString(),
          ends_at: new Date(t.ctx.clock.now() + 8 * day).toISOString(),
          visibility: 'public',
          rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
        },
      })
    ).json().id;
    assert.ok(league);
    const reads = operationsOf(doc).filter((o) => o.method === 'GET' && !o.auth && !UNLIMITED_PUBLIC_READS.has(o.key));
    assert.ok(reads.some((o) => o.key === 'GET /leaderboard') && reads.some((o) => o.key === 'GET /user/{user_id}/public'));
    let n = 0;
    for (const op of reads) {
      n++;
      const url = op.path
        .replace('{user_id}', String(u.id))
        .replace('{bet_id}', String(bet))
        .replace('{date}', '2026-03-01')
        .replace('{id}', String(league));
      assert.ok(op.responses.includes('429'), `${op.key} declares its 429`);
      const from = (ip: string) => t.app.inject({ method: 'GET', url, remoteAddress: ip });
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await from(`10.77.${n}.1`)).statusCode);
      assert.ok(
        codes.every((c) => c !== 429),
        `${op.key}: ${codes}`,
      );
      const limited = await from(`10.77.${n}.1`);
      errorShape(limited, 429, op.key);
      assert.ok(Number(limited.headers['retry-after']) >= 1, `${op.key} Retry-After`);
      assert.notEqual((await from(`10.78.${n}.1`)).statusCode, 429, `${op.key}: another client is not limited`);
    }
  });

  test('/register and /login: the fourth request in a minute from one address → 429 with Retry-After', async () => {
    for (const url of ['/register', '/login']) {
      const codes: number[] = [];
      let last: LightMyRequestResponse | undefined;
      for (let i = 0; i < 4; i++) {
        const username = uniqueName();
        last = await t.app.inject({
          method: 'POST',
          url,
          remoteAddress: url === '/register' ? '10.1.1.1' : '10.1.1.2',
          payload:
            url === '/register' ? { username, email: `${username}@x.test`, password: PASSWORD } : { email: `${username}@x.test`, password: PASSWORD },
        });
        codes.push(last.statusCode);
      }
      assert.deepEqual(codes, url === '/register' ? [201, 201, 201, 429] : [401, 401, 401, 429]);
      assert.ok(last!.headers['retry-after']);
      errorShape(last!, 429, url);
    }
  });
});
