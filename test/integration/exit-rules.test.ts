// Issue 37, exit rules: a stop-loss and a take-profit close the bet at the
// first published quote at or beyond the level (its price and instant; a gap
// fills at the quote), through the close path (CLOSED, ranked like any close,
// close_reason in history, GET /bet and the record); a rule changed just before
// a crossing uses the new level; two instances fire once; after a restart the
// first quote published fires it. Driven by the injected clock and a price
// provider the test sets (and the seeded walk in one case); the trigger job is
// run pass by pass, no sleeping.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { CANCEL_WINDOW_MS, percentageGain } from '../../src/domain/bets.js';
import type { RecordEvent } from '../../src/domain/record.js';
import { FakeClock } from '../../src/lib/clock.js';
import { priceTriggersJob } from '../../src/jobs/price-triggers.js';
import { findBetById } from '../../src/repositories/bets.js';
import { exitRulesWatcher } from '../../src/services/exit-rules.js';
import { registerAndLogin, type TestUser } from '../helpers/app.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase, type TestDatabase } from '../helpers/db.js';
import { follow } from '../helpers/messaging.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const S = 1000;
/** More than the price cache time (5 s in tests): each step publishes a new quote when asked. */
const STEP = 6 * S;

forEachDialect('exit rules', (dialect) => {
  let database: TestDatabase;
  const clock = new FakeClock();
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, NVDA: 100, TSLA: 200, 'BTC-USD': 50_000, 'ETH-USD': 3000, SPY: 500 });
  prices.followClock(clock);
  const apps: FastifyInstance[] = [];
  let app: FastifyInstance;

  async function instance(provider: FakePriceProvider | null = prices): Promise<FastifyInstance> {
    const a = await buildApp(testConfig({ capacities: { baseBets: 100, baseFollows: 5 } } as never), {
      logger: false,
      database,
      clock,
      ...(provider ? { prices: provider } : {}),
    });
    apps.push(a);
    return a;
  }
  before(async () => {
    database = await openTestDatabase(dialect, { migrated: true });
    app = await instance();
  });
  after(async () => {
    for (const a of apps) await a.close().catch(() => undefined);
    await database.close();
  });

  // Weekdays in NYSE hours, so stock quotes move (2026-11-23 is a Monday).
  let day = 0;
  const freshStart = () => {
    day++;
    clock.set(Date.parse('2026-11-23T15:00:00Z') + day * 7 * 86_400_000);
  };
  const passOf = (a: FastifyInstance) => priceTriggersJob(a.ctx, [exitRulesWatcher(a.ctx)], quiet);
  const pass = (a: FastifyInstance = app) => passOf(a).run(new AbortController().signal);
  async function open(u: TestUser, body: Record<string, unknown>, a = app) {
    return a.inject({ method: 'POST', url: '/bet/open', payload: body, headers: { cookie: u.cookie } });
  }
  async function openId(u: TestUser, body: Record<string, unknown>): Promise<number> {
    const res = await open(u, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  const putExits = (u: TestUser, id: number | string, payload: unknown, a = app) =>
    a.inject({ method: 'PUT', url: `/bet/${id}/exits`, payload: payload as object, headers: { cookie: u.cookie } });
  const getExits = (u: TestUser, id: number) => app.inject({ method: 'GET', url: `/bet/${id}/exits`, headers: { cookie: u.cookie } });
  const bet = async (id: number) => (await findBetById(database.db, id))!;
  /** Moves the clock a step, sets the price, and runs one trigger pass (which publishes the quote in force). */
  async function step(ticker: string, price: number, a = app): Promise<number> {
    clock.advance(STEP);
    prices.set(ticker, price);
    return pass(a);
  }

  test('a take-profit fires at the first crossing quote: its price and instant, CLOSED with close_reason take_profit everywhere', async () => {
    freshStart();
    const u = await registerAndLogin(app);
    prices.set('AAPL', 100);
    const id = await openId(u, { ticker: 'AAPL', direction: 'LONG', take_profit: 5 });
    const exits = (await getExits(u, id)).json();
    assert.deepEqual(
      { tp: exits.take_profit, price: exits.take_profit_price, sl: exits.stop_loss, live: exits.live },
      { tp: 5, price: 105, sl: null, live: true },
    );
    assert.equal(await step('AAPL', 104.9), 0, 'below the level: nothing');
    assert.equal((await bet(id)).status, 'OPEN');
    assert.equal(await step('AAPL', 106.5), 1, 'the first quote at or beyond the level fires');
    const firedAt = clock.now();
    assert.equal(await step('AAPL', 110), 0, 'once');
    const b = await bet(id);
    assert.equal(b.status, 'CLOSED');
    assert.equal(b.exit_price, 106.5, "the quote's price, not the level");
    assert.equal(b.closed_at, firedAt, "the quote's instant");
    assert.equal(b.close_reason, 'take_profit');
    assert.equal(b.percentage_gain, percentageGain('LONG', 100, 106.5));
    assert.equal(b.ranked_gain, null, 'closed before its committed instant: not ranked, like any close');

    const detail = (await app.inject({ method: 'GET', url: `/bet/${id}` })).json();
    assert.equal(detail.close_reason, 'take_profit');
    assert.equal(detail.ranked, 'early');
    const hist = (await app.inject({ method: 'GET', url: '/history', headers: { cookie: u.cookie } })).json();
    assert.equal(hist.find((h: { id: number }) => h.id === id).close_reason, 'take_profit');
    const entries = await database.db.selectFrom('record_entries').select('event').where('user_id', '=', u.id).orderBy('seq').execute();
    const closed = entries.map((e) => JSON.parse(e.event) as RecordEvent).find((e) => e.bet_id === id && e.kind === 'closed');
    assert.equal(closed?.close_reason, 'take_profit');
    assert.equal(closed?.event_at, new Date(firedAt).toISOString());
    const lb = (await app.inject({ method: 'GET', url: '/leaderboard' })).json();
    assert.ok(
      lb.some((r: { id: number }) => r.id === u.id),
      'on the leaderboard as any CLOSED bet',
    );
    assert.equal((await getExits(u, id)).json().live, false, 'a finished bet keeps its levels, no longer live');
  });

  test('a stop-loss after the committed instant: ranked from the committed price; a gap fills at the quote, not the level', async () => {
    freshStart();
    const u = await registerAndLogin(app);
    prices.set('TSLA', 200);
    const id = await openId(u, { ticker: 'TSLA', direction: 'SHORT', stop_loss: -2 });
    assert.equal((await getExits(u, id)).json().stop_loss_price, 204, 'a SHORT loses as the price rises');
    clock.advance(CANCEL_WINDOW_MS);
    prices.set('TSLA', 201);
    assert.equal(await pass(), 0);
    assert.equal(await step('TSLA', 230), 1, 'gapped far past 204');
    const b = await bet(id);
    assert.equal(b.close_reason, 'stop_loss');
    assert.equal(b.exit_price, 230, 'filled at the quote');
    assert.equal(b.percentage_gain, -15);
    assert.equal(b.committed_price, 201);
    assert.equal(b.ranked_gain, percentageGain('SHORT', 201, 230));
  });

  test('a rule changed just before a crossing uses the new level; removing it stops it', async () => {
    freshStart();
    const u = await registerAndLogin(app);
    prices.set('NVDA', 100);
    const id = await openId(u, { ticker: 'NVDA', direction: 'LONG', take_profit: 5, stop_loss: -5 });
    clock.advance(STEP);
    const changed = await putExits(u, id, { take_profit: 20 });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual([changed.json().take_profit, changed.json().stop_loss], [20, -5], 'an absent field keeps its level');
    assert.equal(await step('NVDA', 110), 0, 'the old level is gone');
    assert.equal((await putExits(u, id, { stop_loss: null })).json().stop_loss, null);
    assert.equal(await step('NVDA', 90), 0, 'a removed stop-loss does not fire');
    assert.equal(await step('NVDA', 121), 1, 'the new level fires');
    assert.equal((await bet(id)).exit_price, 121);
  });

  test('a level already passed when set fires at the next quote, never at one before the change', async () => {
    freshStart();
    const u = await registerAndLogin(app);
    prices.set('MSFT', 400);
    const id = await openId(u, { ticker: 'MSFT', direction: 'LONG' });
    assert.equal(await step('MSFT', 440), 0, 'no rule yet');
    assert.equal((await putExits(u, id, { take_profit: 5 })).statusCode, 200);
    assert.equal(await pass(), 0, 'the quote in force was published before the change');
    assert.equal(await step('MSFT', 441), 1);
    assert.equal((await bet(id)).exit_price, 441);
  });

  test('two instances on one database fire the rule once, with one notice to the owner and none to a follower', async () => {
    freshStart();
    const other = await instance();
    const u = await registerAndLogin(app);
    const fan = await registerAndLogin(app);
    await follow({ ctx: app.ctx, clock } as never, fan, u);
    // The owner has a linked chat and wants each notice by email (a verified address).
    const now = clock.now();
    await database.db
      .insertInto('chat_links')
      .values({ user_id: u.id, transport: app.ctx.chatTransport.name, chat_id: '4242', linked_at: now })
      .execute();
    await database.db.insertInto('email_verified').values({ user_id: u.id, email: u.email, verified_at: now }).execute();
    await database.db
      .insertInto('notice_settings')
      .values({ user_id: u.id, email_notices: 'each', digest_hour: 8, time_zone: 'UTC', next_digest_at: null, digest_since: null, updated_at: now })
      .execute();
    prices.set('ETH-USD', 3000);
    const id = await openId(u, { ticker: 'ETH-USD', direction: 'LONG', stop_loss: -10 });
    clock.advance(STEP);
    prices.set('ETH-USD', 2600);
    const fired = await Promise.all([pass(app), pass(other), pass(app), pass(other)]);
    assert.equal(
      fired.reduce((a, b) => a + b, 0),
      1,
      'fired once',
    );
    const b = await bet(id);
    assert.equal(b.close_reason, 'stop_loss');
    assert.equal(b.exit_price, 2600);
    const notices = (await app.inject({ method: 'GET', url: '/notifications', headers: { cookie: u.cookie } })).json();
    const exitNotices = notices.filter((n: { kind: string }) => n.kind === 'bet_exit');
    assert.equal(exitNotices.length, 1);
    assert.match(exitNotices[0].text, /closed by its stop-loss at 2,600 \(entry 3,000\): -13\.33%/);
    assert.equal(exitNotices[0].link, `bet/${id}`);
    const outbox = await database.db
      .selectFrom('notifications')
      .select(['user_id', 'transport', 'kind', 'text'])
      .where('bet_id', '=', id)
      .where('kind', '=', 'bet_exit')
      .execute();
    assert.deepEqual(
      outbox.map((r) => [Number(r.user_id), r.transport]).sort(),
      [
        [u.id, app.ctx.chatTransport.name],
        [u.id, 'email'],
      ].sort(),
      'the chat and the email, once each',
    );
    assert.ok(outbox.every((r) => r.text.includes(`/bet/${id}`)));
    const fanNotices = (await app.inject({ method: 'GET', url: '/notifications', headers: { cookie: fan.cookie } })).json();
    assert.deepEqual(
      fanNotices.filter((n: { bet_id: number | null }) => n.bet_id === id).map((n: { kind: string }) => n.kind),
      ['bet_opened'],
      'followers hear of the opening only',
    );
  });

  test('after a restart the first quote published fires the rule once, at its price and instant', async () => {
    freshStart();
    const u = await registerAndLogin(app);
    prices.set('AAPL', 100);
    const id = await openId(u, { ticker: 'AAPL', direction: 'LONG', stop_loss: -3 });
    assert.equal(await step('AAPL', 99), 0);
    // Every instance goes down; the price crosses and comes back part way while nothing publishes.
    for (const a of apps.splice(0)) await a.close();
    clock.advance(10 * 60 * S);
    prices.set('AAPL', 90);
    clock.advance(10 * 60 * S);
    prices.set('AAPL', 96);
    clock.advance(STEP);
    app = await instance();
    const restartedAt = clock.now();
    assert.equal(await pass(), 1);
    assert.equal(await pass(), 0, 'once');
    const b = await bet(id);
    assert.equal(b.exit_price, 96, 'the first quote after the restart: 90 was never published');
    assert.equal(b.closed_at, restartedAt);
    assert.equal(b.close_reason, 'stop_loss');
  });

  test('the seeded walk: a tight take-profit closes at the first published quote that reaches it', async () => {
    freshStart();
    const walk = await instance(null);
    const u = await registerAndLogin(walk);
    const res = await open(u, { ticker: 'BTC-USD', direction: 'LONG', take_profit: 0.01, stop_loss: -0.01 }, walk);
    assert.equal(res.statusCode, 200, res.body);
    const { bet_id: id, entry_price: entry } = res.json();
    const openedAt = clock.now();
    let fired = 0;
    for (let i = 0; i < 200 && fired === 0; i++) {
      clock.advance(STEP);
      fired = await passOf(walk).run(new AbortController().signal);
    }
    assert.equal(fired, 1, 'the walk moved 0.01 % within 200 quotes');
    const b = await bet(id);
    const quotes = await database.db
      .selectFrom('quotes')
      .select(['price', 'published_at'])
      .where('ticker', '=', 'BTC-USD')
      .where('published_at', '>', openedAt)
      .orderBy('published_at')
      .execute();
    const first = quotes.find((q) => Math.abs(percentageGain('LONG', entry, Number(q.price))) >= 0.01)!;
    assert.equal(b.closed_at, Number(first.published_at));
    assert.equal(b.exit_price, Number(first.price));
    assert.equal(b.close_reason, percentageGain('LONG', entry, b.exit_price!) > 0 ? 'take_profit' : 'stop_loss');
  });

  describe('bad input in SPEC error shapes', () => {
    test('bounds, unknown fields, wrong side, another user, a closed bet, an unknown bet', async () => {
      freshStart();
      const u = await registerAndLogin(app);
      const v = await registerAndLogin(app);
      prices.set('AAPL', 100);
      const isError = (res: { statusCode: number; json(): unknown }, code: number) => {
        assert.equal(res.statusCode, code);
        const body = res.json() as { error: unknown };
        assert.equal(typeof body.error, 'string');
      };
      for (const body of [
        { stop_loss: 0 },
        { stop_loss: -100 },
        { stop_loss: 5 },
        { take_profit: 0 },
        { take_profit: 10_001 },
        { take_profit: -1 },
      ]) {
        isError(await open(u, { ticker: 'AAPL', direction: 'LONG', ...body }), 400);
      }
      isError(await open(u, { ticker: 'AAPL', direction: 'LONG', trailing_stop: 3 }), 400);
      isError(await open(u, { ticker: 'AAPL', direction: 'SHORT', take_profit: 100 }), 400);
      const spec = await openId(u, { ticker: 'AAPL', direction: 'LONG' });
      assert.deepEqual(
        (await getExits(u, spec)).json(),
        { bet_id: spec, stop_loss: null, take_profit: null, stop_loss_price: null, take_profit_price: null, set_at: null, live: false },
        'a SPEC opening has no levels',
      );
      for (const body of [{}, { stop_loss: -99.5 }, { take_profit: 'ten' }, { take_profit: 10, other: 1 }])
        isError(await putExits(u, spec, body), 400);
      const short = await openId(u, { ticker: 'AAPL', direction: 'SHORT' });
      isError(await putExits(u, short, { take_profit: 150 }), 400);
      // An Idempotency-Key like the other writes: the repeat answers the first answer, changing nothing.
      const keyed = () =>
        app.inject({
          method: 'PUT',
          url: `/bet/${short}/exits`,
          payload: { take_profit: 50 },
          headers: { cookie: u.cookie, 'idempotency-key': `exits-${short}` },
        });
      const first = await keyed();
      assert.equal(first.statusCode, 200, first.body);
      clock.advance(S);
      assert.deepEqual((await keyed()).json(), first.json());
      assert.equal((await getExits(u, short)).json().set_at, first.json().set_at);
      isError(await putExits(v, spec, { take_profit: 10 }), 404);
      isError(await getExits(v, spec), 404);
      isError(await putExits(u, 999_999_999, { take_profit: 10 }), 404);
      isError(await putExits(u, 'abc', { take_profit: 10 }), 400);
      clock.advance(STEP);
      assert.equal(
        (await app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: spec }, headers: { cookie: u.cookie } })).statusCode,
        200,
      );
      const closed = await putExits(u, spec, { take_profit: 10 });
      isError(closed, 400);
      assert.equal((closed.json() as { error: string }).error, 'Bet is not open');
      const closeReason = (await app.inject({ method: 'GET', url: `/bet/${spec}` })).json().close_reason;
      assert.equal(closeReason, 'manual');
    });
  });

  test('migration 0027 goes down and up again: the exit_rules table', async () => {
    const db = await openTestDatabase(dialect, { migrated: true });
    try {
      // Whether the table is there: a query of it answers, or fails.
      const present = () =>
        db.db
          .selectFrom('exit_rules')
          .select('bet_id')
          .limit(1)
          .execute()
          .then(
            () => true,
            () => false,
          );
      await db.migrate(); // PostgreSQL's test schema starts empty (the app migrates it when built)
      assert.equal(await present(), true);
      await migrateTestDatabaseTo(db, '0026_commitment_backfill');
      assert.equal(await present(), false, 'down drops it');
      assert.equal(
        await db.db
          .selectFrom('bets')
          .select('id')
          .limit(1)
          .execute()
          .then(() => true),
        true,
        'the bets stay',
      );
      await migrateTestDatabaseTo(db, '0027_exit_rules');
      assert.equal(await present(), true, 'up again');
    } finally {
      await db.close();
    }
  });
});
