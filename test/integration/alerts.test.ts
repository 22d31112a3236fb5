// Price alerts through the API and the watcher on both dialects: every
// endpoint's success, error and security cases; the capacity under parallel
// creations; each kind firing once at the first published quote that meets
// it (the quote in force when set counts), with that quote's price and
// instant, told in the app, the chat and by email; two evaluations fire once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { periodicJobs } from '../../src/jobs/schedule.js';
import { FakeClock } from '../../src/lib/clock.js';
import { upsertLink } from '../../src/repositories/chat-links.js';
import { appendQuote } from '../../src/repositories/quotes.js';
import { evaluateAlerts, priceAlertsWatcher } from '../../src/services/price-alerts.js';
import type { CachedPriceService } from '../../src/services/prices.js';
import type { DatabaseQuoteLog } from '../../src/services/quote-log.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const MINUTE = 60_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

forEachDialect('price alerts', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, 'BTC-USD': 50_000, 'ETH-USD': 3000, SPY: 500, NVDA: 800 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { alertCapacity: 3 } });
  });
  after(() => t.close());

  const call = (u: TestUser | null, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...(u ? { cookie: u.cookie } : {}), ...headers }, ...(payload ? { payload } : {}) });
  async function create(u: TestUser, body: { ticker: string; kind: string; value: number }) {
    const res = await call(u, 'POST', '/alerts', body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: number; created_at: string; status: string };
  }
  const list = async (u: TestUser) => (await call(u, 'GET', '/alerts')).json();
  const alertOf = async (u: TestUser, id: number) => (await list(u)).alerts.find((a: { id: number }) => a.id === id);
  /** The quote in force now, published (as a request would see it), with its instant. */
  const quoteNow = (ticker: string) => t.ctx.prices.quote(ticker);
  /** A quote published `after` ms from now, the clock moved to it. */
  async function publish(ticker: string, price: number, after = MINUTE): Promise<number> {
    t.clock.advance(after);
    const at = t.clock.now();
    await appendQuote(t.ctx.db, ticker, { price, at });
    return at;
  }

  describe('the endpoints', () => {
    test("POST answers 201 with the alert and its id; GET lists the caller's; DELETE removes one", async () => {
      const u = await registerAndLogin(t.app, 'al');
      const a = await create(u, { ticker: 'aapl', kind: 'above', value: 150 });
      assert.equal(typeof a.id, 'number');
      assert.deepEqual(
        { ...a, created_at: undefined },
        {
          id: a.id,
          ticker: 'AAPL',
          kind: 'above',
          value: 150,
          status: 'active',
          created_at: undefined,
          fired_at: null,
          fired_price: null,
          fired_change_percent: null,
        },
      );
      const b = await create(u, { ticker: 'BTC-USD', kind: 'move', value: 5 });
      const body = await list(u);
      assert.deepEqual(
        body.alerts.map((x: { id: number }) => x.id),
        [b.id, a.id],
        'newest first',
      );
      assert.equal(body.total, 2);
      assert.equal(body.active, 2);
      assert.equal(body.capacity, 3);
      const del = await call(u, 'DELETE', `/alerts/${a.id}`);
      assert.equal(del.statusCode, 200);
      assert.deepEqual(del.json(), { message: 'Alert removed' });
      assert.equal((await call(u, 'DELETE', `/alerts/${a.id}`)).statusCode, 404);
      assert.deepEqual(
        (await list(u)).alerts.map((x: { id: number }) => x.id),
        [b.id],
      );
    });

    test("another user's alert is 404 to delete and absent from their list; no session is 401", async () => {
      const owner = await registerAndLogin(t.app, 'al');
      const other = await registerAndLogin(t.app, 'al');
      const a = await create(owner, { ticker: 'MSFT', kind: 'below', value: 300 });
      const res = await call(other, 'DELETE', `/alerts/${a.id}`);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { error: 'Alert not found' });
      assert.equal((await list(other)).total, 0);
      assert.equal((await alertOf(owner, a.id)).status, 'active', 'still there');
      assert.equal((await call(null, 'GET', '/alerts')).statusCode, 401);
      assert.equal((await call(null, 'POST', '/alerts', { ticker: 'AAPL', kind: 'above', value: 1 })).statusCode, 401);
      assert.equal((await call(null, 'DELETE', `/alerts/${a.id}`)).statusCode, 401);
    });

    test('bad input: ticker form 400, unknown ticker 404, unknown kind, bounds and extra fields 400, provider down 503', async () => {
      const u = await registerAndLogin(t.app, 'al');
      const post = (body: object) => call(u, 'POST', '/alerts', body);
      const bad = await post({ ticker: 'AA PL', kind: 'above', value: 1 });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().error, /Invalid ticker/);
      const unknown = await post({ ticker: 'NOPE', kind: 'above', value: 1 });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(Object.keys(unknown.json()), ['error']);
      for (const body of [
        { ticker: 'AAPL', kind: 'sideways', value: 1 },
        { ticker: 'AAPL', kind: 'above', value: 0 },
        { ticker: 'AAPL', kind: 'below', value: -5 },
        { ticker: 'AAPL', kind: 'above', value: 2e9 },
        { ticker: 'AAPL', kind: 'above', value: '100' },
        { ticker: 'AAPL', kind: 'move', value: 1001 },
        { ticker: 'AAPL', kind: 'move', value: 0.001 },
        { ticker: 'AAPL', kind: 'above' },
        { ticker: 'AAPL', kind: 'above', value: 1, note: 'x' },
      ]) {
        const res = await post(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.deepEqual(Object.keys(res.json()), ['error']);
      }
      assert.equal((await call(u, 'DELETE', '/alerts/abc')).statusCode, 400);
      assert.equal((await call(u, 'GET', '/alerts?limit=0')).statusCode, 400);
      prices.failing.add('NVDA');
      try {
        t.clock.advance(10_000);
        const down = await post({ ticker: 'NVDA', kind: 'above', value: 900 });
        assert.equal(down.statusCode, 503);
        assert.ok(down.headers['retry-after']);
      } finally {
        prices.failing.delete('NVDA');
      }
      assert.equal((await list(u)).total, 0, 'nothing was stored');
    });

    test('capacity: 403 LIMIT_REACHED with the limit; a fired or removed alert frees a place; a plan adds extra_alerts', async () => {
      const u = await registerAndLogin(t.app, 'al');
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await create(u, { ticker: 'SPY', kind: 'above', value: 10_000 + i })).id);
      const full = await call(u, 'POST', '/alerts', { ticker: 'SPY', kind: 'above', value: 20_000 });
      assert.equal(full.statusCode, 403);
      assert.deepEqual(Object.keys(full.json()).sort(), ['error', 'limit', 'message']);
      assert.equal(full.json().error, 'LIMIT_REACHED');
      assert.equal(full.json().limit, 3);
      assert.equal((await call(u, 'DELETE', `/alerts/${ids[0]}`)).statusCode, 200);
      const below = await create(u, { ticker: 'SPY', kind: 'below', value: 10_000 });
      assert.equal((await call(u, 'POST', '/alerts', { ticker: 'SPY', kind: 'above', value: 20_000 })).statusCode, 403);
      // The below alert is met by the quote in force: once it fired it no longer holds a place.
      await quoteNow('SPY');
      assert.equal(await evaluateAlerts(t.ctx, 'SPY', t.clock.now()), 1);
      assert.equal((await alertOf(u, below.id)).status, 'fired');
      await create(u, { ticker: 'SPY', kind: 'above', value: 30_000 });
      // A paid plan adds its extra_alerts (plans.json), only while it is paid up.
      await t.ctx.db
        .updateTable('users')
        .set({ pay_price_id: 'local_price_plus_monthly', pay_subscription_status: 'active', pay_subscription_id: 'sub_a' })
        .where('id', '=', u.id)
        .execute();
      const plan = t.ctx.config.alertExtras.get('local_price_plus_monthly') ?? 0;
      assert.ok(plan > 0);
      assert.equal((await list(u)).capacity, 3 + plan);
      await create(u, { ticker: 'SPY', kind: 'above', value: 40_000 });
      await t.ctx.db.updateTable('users').set({ pay_subscription_status: 'past_due' }).where('id', '=', u.id).execute();
      const lapsed = await call(u, 'POST', '/alerts', { ticker: 'SPY', kind: 'above', value: 50_000 });
      assert.equal(lapsed.statusCode, 403);
      assert.equal(lapsed.json().limit, 3);
    });

    test('adversary: parallel creations never exceed the capacity', async () => {
      const u = await registerAndLogin(t.app, 'al');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => call(u, 'POST', '/alerts', { ticker: 'MSFT', kind: 'above', value: 1000 + i })),
      );
      const codes = results.map((r) => r.statusCode).sort();
      assert.deepEqual(codes, [201, 201, 201, ...Array(9).fill(403)]);
      const rows = await t.ctx.db.selectFrom('price_alerts').select('id').where('user_id', '=', u.id).execute();
      assert.equal(rows.length, 3);
    });

    test('a deleted account takes its alerts with it', async () => {
      const u = await registerAndLogin(t.app, 'ad');
      await create(u, { ticker: 'AAPL', kind: 'above', value: 5000 });
      const del = await call(u, 'DELETE', '/me', { password: u.password });
      assert.equal(del.statusCode, 200, del.body);
      assert.deepEqual(await t.ctx.db.selectFrom('price_alerts').select('id').where('user_id', '=', u.id).execute(), []);
    });

    test('Idempotency-Key: the same key and body answer as the first time and store one alert', async () => {
      const u = await registerAndLogin(t.app, 'al');
      const body = { ticker: 'ETH-USD', kind: 'below', value: 2000 };
      const first = await call(u, 'POST', '/alerts', body, { 'idempotency-key': 'alert-key-1' });
      const again = await call(u, 'POST', '/alerts', body, { 'idempotency-key': 'alert-key-1' });
      assert.equal(first.statusCode, 201);
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().id, first.json().id);
      assert.equal((await list(u)).total, 1);
      const other = await call(u, 'POST', '/alerts', { ...body, value: 1000 }, { 'idempotency-key': 'alert-key-1' });
      assert.equal(other.statusCode, 422);
    });
  });

  describe('the watcher', () => {
    test('above and below fire once, at the first quote at or beyond the level, with its price and instant (a gap fills at the quote)', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      await quoteNow('AAPL');
      const up = await create(u, { ticker: 'AAPL', kind: 'above', value: 110 });
      const down = await create(u, { ticker: 'AAPL', kind: 'below', value: 90 });
      await publish('AAPL', 105);
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 0);
      const gapAt = await publish('AAPL', 117.5);
      await publish('AAPL', 109);
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 1);
      const fired = await alertOf(u, up.id);
      assert.equal(fired.status, 'fired');
      assert.equal(fired.fired_price, 117.5, 'the quote, not the level');
      assert.equal(fired.fired_at, new Date(gapAt).toISOString());
      // A later crossing does not fire it again.
      await publish('AAPL', 130);
      const belowAt = await publish('AAPL', 89.99);
      await publish('AAPL', 80);
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 1);
      assert.equal((await alertOf(u, up.id)).fired_at, new Date(gapAt).toISOString());
      const low = await alertOf(u, down.id);
      assert.equal(low.fired_price, 89.99);
      assert.equal(low.fired_at, new Date(belowAt).toISOString());
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 0);
    });

    test("a live alert's mark moves once it is a minute behind, not every pass, and a crossing after a held mark still fires at its quote", async () => {
      const u = await registerAndLogin(t.app, 'mk');
      await quoteNow('NVDA');
      const a = await create(u, { ticker: 'NVDA', kind: 'above', value: 900 });
      const mark = async () =>
        Number((await t.ctx.db.selectFrom('price_alerts').select('checked_until').where('id', '=', a.id).executeTakeFirstOrThrow()).checked_until);
      const first = await publish('NVDA', 801, 5_000);
      assert.equal(await evaluateAlerts(t.ctx, 'NVDA', t.clock.now()), 0);
      assert.equal(await mark(), first, 'the first pass sets the mark');
      await publish('NVDA', 802, 5_000);
      assert.equal(await evaluateAlerts(t.ctx, 'NVDA', t.clock.now()), 0);
      assert.equal(await mark(), first, 'held: five seconds behind');
      const crossing = await publish('NVDA', 901, 5_000);
      await publish('NVDA', 850, 5_000);
      assert.equal(await evaluateAlerts(t.ctx, 'NVDA', t.clock.now()), 1);
      const fired = await alertOf(u, a.id);
      assert.equal(fired.fired_at, new Date(crossing).toISOString());
      const b = await create(u, { ticker: 'NVDA', kind: 'above', value: 2000 });
      const markOf = async () =>
        Number((await t.ctx.db.selectFrom('price_alerts').select('checked_until').where('id', '=', b.id).executeTakeFirstOrThrow()).checked_until);
      const start = await publish('NVDA', 851, 5_000);
      await evaluateAlerts(t.ctx, 'NVDA', t.clock.now());
      assert.equal(await markOf(), start);
      const later = await publish('NVDA', 852, 61_000);
      await evaluateAlerts(t.ctx, 'NVDA', t.clock.now());
      assert.equal(await markOf(), later, 'moved: a minute behind');
    });

    test('quotes after `until` wait for a later pass; an alert already met when set fires at the quote in force then', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      t.clock.advance(10_000);
      const inForce = await quoteNow('MSFT');
      t.clock.advance(1000);
      const met = await create(u, { ticker: 'MSFT', kind: 'below', value: 450 });
      const later = await create(u, { ticker: 'MSFT', kind: 'above', value: 401 });
      const until = t.clock.now();
      await publish('MSFT', 402);
      assert.equal(await evaluateAlerts(t.ctx, 'MSFT', until), 1, 'only the quote in force is within until');
      const m = await alertOf(u, met.id);
      assert.equal(m.fired_price, inForce.price);
      assert.equal(m.fired_at, new Date(inForce.at).toISOString());
      assert.equal((await alertOf(u, later.id)).status, 'active');
      assert.equal(await evaluateAlerts(t.ctx, 'MSFT', t.clock.now()), 1);
      assert.equal((await alertOf(u, later.id)).fired_price, 402);
    });

    test("move fires when the directory's change since the previous close reaches the value either way", async () => {
      const u = await registerAndLogin(t.app, 'aw');
      // BTC-USD's previous close is the price 24 hours before each quote: 50,000 (FakePriceProvider's timeline).
      await quoteNow('BTC-USD');
      const rise = await create(u, { ticker: 'BTC-USD', kind: 'move', value: 4 });
      const fall = await create(u, { ticker: 'BTC-USD', kind: 'move', value: 10 });
      await publish('BTC-USD', 51_900);
      assert.equal(await evaluateAlerts(t.ctx, 'BTC-USD', t.clock.now()), 0, '+3.8 % is short of 4 %');
      const riseAt = await publish('BTC-USD', 52_100);
      await publish('BTC-USD', 46_000);
      const fallAt = await publish('BTC-USD', 44_900);
      // (Another test's user has a 5 % move alert on BTC-USD still live: it fires in this pass too.)
      assert.ok((await evaluateAlerts(t.ctx, 'BTC-USD', t.clock.now())) >= 2);
      const r = await alertOf(u, rise.id);
      assert.deepEqual([r.fired_price, r.fired_change_percent, r.fired_at], [52_100, 4.2, new Date(riseAt).toISOString()]);
      const f = await alertOf(u, fall.id);
      assert.deepEqual([f.fired_price, f.fired_change_percent, f.fired_at], [44_900, -10.2, new Date(fallAt).toISOString()]);
    });

    test('two concurrent evaluations (two instances) fire each alert once and tell its owner once', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      await upsertLink(t.ctx.db, u.id, { transport: t.ctx.chatTransport.name, chatId: `chat-${u.id}` }, t.clock.now());
      await quoteNow('ETH-USD');
      const a = await create(u, { ticker: 'ETH-USD', kind: 'above', value: 3100 });
      await publish('ETH-USD', 3150);
      const watcher = priceAlertsWatcher(t.ctx);
      const until = t.clock.now();
      const pass = async () => (await watcher.evaluate(['ETH-USD'], until, new AbortController().signal)).fired;
      const counts = await Promise.all([pass(), pass(), evaluateAlerts(t.ctx, 'ETH-USD', until)]);
      assert.equal(
        counts.reduce((x, y) => x + y, 0),
        1,
      );
      assert.equal((await alertOf(u, a.id)).fired_price, 3150);
      const notices = await t.ctx.db.selectFrom('user_notices').selectAll().where('user_id', '=', u.id).where('kind', '=', 'price_alert').execute();
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.link, 'alerts');
      assert.match(notices[0]!.text, /^Alert: ETH-USD at 3,150 /);
      const chats = await t.ctx.db.selectFrom('notifications').selectAll().where('user_id', '=', u.id).where('kind', '=', 'price_alert').execute();
      assert.equal(chats.length, 1);
      assert.equal(chats[0]!.chat_id, `chat-${u.id}`);
      assert.match(chats[0]!.text, /\nhttp.*alerts$/);
      // In the app's notices, linking to the alerts page.
      const inApp = (await call(u, 'GET', '/notifications')).json();
      const items = Array.isArray(inApp) ? inApp : inApp.notifications;
      assert.ok(items.some((n: { kind: string; link: string }) => n.kind === 'price_alert' && n.link === 'alerts'));
    });

    test('email per the notice settings: each notice by email when chosen, none otherwise', async () => {
      const wants = await registerAndLogin(t.app, 'ae');
      const quiet = await registerAndLogin(t.app, 'ae');
      const now = t.clock.now();
      for (const u of [wants, quiet])
        await t.ctx.db.insertInto('email_verified').values({ user_id: u.id, email: u.email, verified_at: now }).execute();
      await t.ctx.db
        .insertInto('notice_settings')
        .values({
          user_id: wants.id,
          email_notices: 'each',
          digest_hour: 8,
          time_zone: 'UTC',
          next_digest_at: null,
          digest_since: null,
          updated_at: now,
        })
        .execute();
      await quoteNow('SPY');
      await create(wants, { ticker: 'SPY', kind: 'above', value: 505 });
      await create(quiet, { ticker: 'SPY', kind: 'above', value: 505 });
      await publish('SPY', 506);
      assert.equal(await evaluateAlerts(t.ctx, 'SPY', t.clock.now()), 2);
      const mails = await t.ctx.db
        .selectFrom('notifications')
        .select(['user_id', 'email'])
        .where('transport', '=', 'email')
        .where('kind', '=', 'price_alert')
        .where('user_id', 'in', [wants.id, quiet.id])
        .execute();
      assert.deepEqual(mails, [{ user_id: wants.id, email: wants.email }]);
    });

    test('liveTickers lists the tickers with a live alert; a removed alert never fires', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      await quoteNow('NVDA');
      const a = await create(u, { ticker: 'NVDA', kind: 'above', value: 900 });
      const watcher = priceAlertsWatcher(t.ctx);
      assert.equal(watcher.name, 'price_alerts');
      assert.ok((await watcher.liveTickers()).includes('NVDA'));
      assert.equal((await call(u, 'DELETE', `/alerts/${a.id}`)).statusCode, 200);
      await publish('NVDA', 950);
      assert.deepEqual(await watcher.evaluate(['NVDA'], t.clock.now(), new AbortController().signal), { fired: 0, failures: [] });
    });

    test('a move alert whose previous close the provider cannot give now waits at that quote, then fires at it', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      await quoteNow('ETH-USD');
      const a = await create(u, { ticker: 'ETH-USD', kind: 'move', value: 8 });
      prices.failing.add('ETH-USD');
      let at: number;
      try {
        at = await publish('ETH-USD', 3300);
        await publish('ETH-USD', 3310);
        assert.equal(await evaluateAlerts(t.ctx, 'ETH-USD', t.clock.now()), 0);
        const row = await t.ctx.db.selectFrom('price_alerts').select(['fired_at', 'checked_until']).where('id', '=', a.id).executeTakeFirstOrThrow();
        assert.deepEqual(row, { fired_at: null, checked_until: null }, 'not marked past the quote it could not read');
      } finally {
        prices.failing.delete('ETH-USD');
      }
      t.clock.advance(MINUTE);
      assert.equal(await evaluateAlerts(t.ctx, 'ETH-USD', t.clock.now()), 1);
      const fired = await alertOf(u, a.id);
      assert.deepEqual([fired.fired_price, fired.fired_change_percent, fired.fired_at], [3300, 10, new Date(at).toISOString()]);
    });

    test('a pass resumes near the last quote it evaluated, and still fires at the first meeting quote after it', async () => {
      const u = await registerAndLogin(t.app, 'aw');
      await quoteNow('AAPL');
      const a = await create(u, { ticker: 'AAPL', kind: 'above', value: 1000 });
      for (let i = 0; i < 5; i++) await publish('AAPL', 100 + i);
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 0);
      const row = await t.ctx.db.selectFrom('price_alerts').select('checked_until').where('id', '=', a.id).executeTakeFirstOrThrow();
      assert.equal(row.checked_until, t.clock.now(), 'marked at the last quote');
      const at = await publish('AAPL', 1001, 2 * MINUTE);
      assert.equal(await evaluateAlerts(t.ctx, 'AAPL', t.clock.now()), 1);
      assert.equal((await alertOf(u, a.id)).fired_at, new Date(at).toISOString());
    });
  });
});

forEachDialect('price alerts on the simulated market', (dialect) => {
  let t: TestApp;
  before(async () => {
    // Monday 30 November 2026, 11:00 in New York: NYSE open, a stock's previous close is Friday's.
    t = await createTestApp(dialect, { clock: new FakeClock(Date.parse('2026-11-30T16:00:00Z')), config: { alertCapacity: 10 } });
  });
  after(() => t.close());

  test("a move alert reads the directory's change_percent: at |change| it fires with that change, 0.01 more it waits", async () => {
    const u = await registerAndLogin(t.app, 'as');
    for (const ticker of ['AAPL', 'BTC-USD']) {
      const res = await t.app.inject({ method: 'GET', url: `/instruments/${ticker}?range=1d`, headers: { cookie: u.cookie } });
      assert.equal(res.statusCode, 200, res.body);
      const shown = res.json().instrument.quote;
      const change = Math.abs(shown.change_percent);
      assert.ok(change >= 0.01, `${ticker} moved today (${shown.change_percent} %)`);
      const post = (value: number) =>
        t.app.inject({ method: 'POST', url: '/alerts', headers: { cookie: u.cookie }, payload: { ticker, kind: 'move', value } });
      const at = (await post(change)).json();
      const beyond = (await post(Math.round((change + 0.01) * 100) / 100)).json();
      assert.ok((await evaluateAlerts(t.ctx, ticker, t.clock.now())) >= 1);
      const rows = (await t.app.inject({ method: 'GET', url: '/alerts', headers: { cookie: u.cookie } })).json().alerts;
      const fired = rows.find((a: { id: number }) => a.id === at.id);
      assert.equal(fired.status, 'fired', ticker);
      assert.equal(fired.fired_change_percent, shown.change_percent, `${ticker}: the change the directory shows`);
      assert.equal(fired.fired_price, shown.price);
      assert.equal(rows.find((a: { id: number }) => a.id === beyond.id).status, 'active', `${ticker}: not beyond the change`);
    }
  });

  test('the scheduled trigger engine runs the alerts: a pass publishes the quote in force and fires an alert it meets', async () => {
    const u = await registerAndLogin(t.app, 'ae');
    const { price } = await t.ctx.prices.quote('MSFT');
    const res = await t.app.inject({
      method: 'POST',
      url: '/alerts',
      headers: { cookie: u.cookie },
      payload: { ticker: 'MSFT', kind: 'below', value: price * 2 },
    });
    assert.equal(res.statusCode, 201, res.body);
    const engine = periodicJobs(t.ctx, quiet).find((j) => j.name === 'price triggers');
    assert.ok(engine, 'the engine is scheduled');
    t.clock.advance(t.ctx.config.prices.cacheTtlMs + 1);
    await new PeriodicJob(engine).runOnce();
    const alert = (await t.app.inject({ method: 'GET', url: '/alerts', headers: { cookie: u.cookie } })).json().alerts[0];
    assert.equal(alert.status, 'fired', JSON.stringify(alert));
  });

  test("a pass publishes its instruments' quotes together: one transaction and one insert, and on SQLite one durable commit", async () => {
    const u = await registerAndLogin(t.app, 'ag');
    const tickers = ['AAPL', 'NVDA', 'SPY'];
    for (const ticker of tickers) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/alerts',
        headers: { cookie: u.cookie },
        payload: { ticker, kind: 'above', value: 1_000_000 },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const engine = periodicJobs(t.ctx, quiet).find((j) => j.name === 'price triggers')!;
    t.clock.advance(t.ctx.config.prices.cacheTtlMs + 1);
    const at = t.clock.now();
    const before = { ...(t.ctx.database.groupCommitStats ?? { transactions: 0, batches: 0 }) };
    const log = (t.ctx.prices as CachedPriceService).log as DatabaseQuoteLog;
    const logged = { ...log.stats };
    await new PeriodicJob(engine).runOnce();
    assert.deepEqual({ writes: log.stats.writes - logged.writes, quotes: log.stats.quotes - logged.quotes }, { writes: 1, quotes: tickers.length });
    for (const ticker of tickers) {
      const published = await t.ctx.db.selectFrom('quotes').select('price').where('ticker', '=', ticker).where('published_at', '=', at).execute();
      assert.equal(published.length, 1, `${ticker}'s quote of the pass is in the log`);
    }
    const stats = t.ctx.database.groupCommitStats;
    if (dialect === 'sqlite') {
      assert.ok(stats);
      assert.equal(stats.batches - before.batches, 1, 'the pass in one commit');
    }
  });
});
