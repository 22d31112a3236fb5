// Several instances: three real server processes on one PostgreSQL schema,
// sharing JWT_SECRET and Redis, behind the test's own round-robin client.
// Sessions, logout, settlement, notifications, limits and capacities must
// behave as for one instance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { PASSWORD } from '../helpers/app.js';
import { type Cluster, type ClusterUser, registerUser, RoundRobin, startCluster, waitUntil } from '../helpers/cluster.js';
import { openTestDatabase, PG_URL, REDIS_URL, type TestDatabase } from '../helpers/db.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import { newChatId, noticeCounts } from '../helpers/bot-notices.js';
import { callbackUpdate, textUpdate } from '../helpers/messaging.js';

const SKIP =
  PG_URL && REDIS_URL ? false : 'TEST_DATABASE_URL and TEST_REDIS_URL are not both set: the several-instances suite skipped (set them to run it)';

const INSTANCES = 3;
const BET_CAPACITY = 6;
const FOLLOW_CAPACITY = 4;
const AUTH_PER_MINUTE = 9;
const PUBLIC_PER_MINUTE = 12;
const FREE_LOGIN_FAILURES = 3;
const WEBHOOK_SECRET = 'instances-webhook-secret';

describe('three instances on one PostgreSQL database and one Redis', { skip: SKIP, timeout: 240_000 }, () => {
  let database: TestDatabase;
  let telegram: FakeTelegram;
  let cluster: Cluster;
  let bases: string[];

  before(async () => {
    database = await openTestDatabase('postgres', { pgPoolSize: 2 });
    telegram = await new FakeTelegram().start();
    cluster = await startCluster(INSTANCES, {
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL!,
      JWT_SECRET: 'instances-suite-secret-instances-suite-0123',
      RATE_LIMITS: 'on',
      TRUST_PROXY: '127.0.0.1',
      AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_PER_MINUTE),
      PUBLIC_RATE_LIMIT_PER_MINUTE: String(PUBLIC_PER_MINUTE),
      LOGIN_FAILURES_BEFORE_DELAY: String(FREE_LOGIN_FAILURES),
      BASE_BET_CAPACITY: String(BET_CAPACITY),
      BASE_FOLLOW_CAPACITY: String(FOLLOW_CAPACITY),
      SETTLEMENT_INTERVAL_SECONDS: '1',
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_URL: telegram.url,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      LOG_LEVEL: 'info',
    });
    bases = cluster.bases;
  });

  after(async () => {
    await cluster?.stop();
    await telegram?.stop();
    await database?.close();
  });

  const webhook = (update: object, instance: number) =>
    new RoundRobin(bases).request<{ method: string }>('POST', '/chat/webhook', {
      body: update,
      instance,
      headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
    });

  /** Links a Telegram chat to the user: code from one instance, /start through another's webhook. */
  async function linkChat(user: ClusterUser): Promise<number> {
    const chatId = newChatId();
    const code = await user.client.request<{ code: string }>('POST', '/chat/link-code', { cookie: user.cookie });
    assert.equal(code.status, 200);
    const hook = await webhook(textUpdate(chatId, `/start ${code.body.code}`), 1);
    assert.equal(hook.status, 200);
    return chatId;
  }

  async function open(user: ClusterUser, body: object, instance?: number) {
    return user.client.request<{ bet_id?: number; error?: string }>('POST', '/bet/open', {
      cookie: user.cookie,
      body,
      ...(instance !== undefined ? { instance } : {}),
    });
  }

  test('every instance migrated the one schema once and serves', async () => {
    const applied = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(database.db);
    const again = await sql<{ n: number }>`select count(distinct name)::int as n from kysely_migration`.execute(database.db);
    assert.equal(applied.rows[0]!.n, again.rows[0]!.n);
    for (let i = 0; i < INSTANCES; i++) {
      const res = await new RoundRobin(bases).request('GET', '/', { instance: i });
      assert.equal(res.status, 200);
    }
  });

  test('a session made on one instance works on the others; logout on one revokes it on all at once', async () => {
    const user = await registerUser(bases);
    for (let i = 0; i < INSTANCES; i++) {
      const me = await user.client.request<{ id: number }>('GET', '/me', { cookie: user.cookie, instance: i });
      assert.equal(me.status, 200, `instance ${i}`);
      assert.equal(me.body.id, user.id);
    }
    const out = await user.client.request('POST', '/logout', { cookie: user.cookie, instance: 0 });
    assert.equal(out.status, 200);
    for (let i = 0; i < INSTANCES; i++) {
      const me = await user.client.request('GET', '/me', { cookie: user.cookie, instance: i });
      assert.equal(me.status, 401, `instance ${i} still accepts the revoked session`);
    }
  });

  test('parallel opens of one user spread over the instances stop exactly at the capacity', async () => {
    const user = await registerUser(bases);
    const tickers = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL'];
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => open(user, { ticker: tickers[i % tickers.length], direction: i % 2 ? 'LONG' : 'SHORT' })),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 403);
    assert.equal(ok.length, BET_CAPACITY, JSON.stringify(results.map((r) => [r.status, r.body])));
    assert.equal(limited.length, results.length - BET_CAPACITY);
    for (const r of limited) assert.equal(r.body.error, 'LIMIT_REACHED');
    const open_ = await database.db.selectFrom('bets').select('id').where('user_id', '=', user.id).where('status', '=', 'OPEN').execute();
    assert.equal(open_.length, BET_CAPACITY);
  });

  test('parallel follows of one user spread over the instances stop exactly at the capacity', async () => {
    const [user, ...targets] = await Promise.all(Array.from({ length: FOLLOW_CAPACITY + 3 }, () => registerUser(bases)));
    const results = await Promise.all(
      targets.map((t) => user!.client.request('POST', '/follow', { cookie: user!.cookie, body: { followed_id: t.id, action: 'follow' } })),
    );
    assert.equal(results.filter((r) => r.status === 200).length, FOLLOW_CAPACITY, JSON.stringify(results.map((r) => r.status)));
    assert.equal(results.filter((r) => r.status === 403).length, targets.length - FOLLOW_CAPACITY);
    const rows = await database.db.selectFrom('follows').select('followed_id').where('follower_id', '=', user!.id).execute();
    assert.equal(rows.length, FOLLOW_CAPACITY);
  });

  test('the per-IP limit on /login and /register is reached at the same total, whichever instance is hit', async () => {
    const client = new RoundRobin(bases);
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_PER_MINUTE + 3; i++) {
      const res = await client.request('POST', '/login', { body: { email: `nobody${i}@example.test`, password: 'not the password' } });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, AUTH_PER_MINUTE), Array(AUTH_PER_MINUTE).fill(401));
    assert.deepEqual(statuses.slice(AUTH_PER_MINUTE), [429, 429, 429]);
  });

  test('the per-IP limit on public reads is shared by the instances', async () => {
    const client = new RoundRobin(bases);
    const statuses: number[] = [];
    for (let i = 0; i < PUBLIC_PER_MINUTE + 3; i++) statuses.push((await client.request('GET', '/leaderboard')).status);
    assert.deepEqual(statuses.slice(0, PUBLIC_PER_MINUTE), Array(PUBLIC_PER_MINUTE).fill(200));
    assert.deepEqual(statuses.slice(PUBLIC_PER_MINUTE), [429, 429, 429]);
  });

  test('failed logins on several instances throttle the account for that IP on all of them, parallel guesses included', async () => {
    const user = await registerUser(bases);
    const guesser = new RoundRobin(bases);
    // Guesses at once, spread over the instances: only the free ones may be tried. (6 + 3 requests
    // stay within the per-IP request limit, so every 429 here is the throttle's.)
    const guesses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => guesser.request('POST', '/login', { body: { email: user.email, password: `wrong guess ${i}` } })),
    );
    const tried = guesses.filter((g) => g.status === 401).length;
    assert.equal(tried, FREE_LOGIN_FAILURES, JSON.stringify(guesses.map((g) => g.status)));
    assert.equal(guesses.filter((g) => g.status === 429).length, guesses.length - FREE_LOGIN_FAILURES);
    // The right password from the same IP now waits too, on every instance.
    for (let i = 0; i < INSTANCES; i++) {
      const res = await guesser.request('POST', '/login', { body: { email: user.email, password: PASSWORD }, instance: i });
      assert.equal(res.status, 429, `instance ${i}`);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    }
    // The same account from another IP is not locked out.
    const owner = new RoundRobin(bases);
    assert.equal((await owner.request('POST', '/login', { body: { email: user.email, password: PASSWORD } })).status, 200);
  });

  test('due bets settle exactly once across instances, and each notice is delivered exactly once', async () => {
    const traders = await Promise.all(Array.from({ length: 3 }, () => registerUser(bases, 'trader')));
    const follower = await registerUser(bases, 'fan');
    const followerChat = await linkChat(follower);
    const traderChats = new Map<number, number>();
    for (const t of traders) {
      traderChats.set(t.id, await linkChat(t));
      const res = await follower.client.request('POST', '/follow', { cookie: follower.cookie, body: { followed_id: t.id, action: 'follow' } });
      assert.equal(res.status, 200);
    }
    const today = new Date().toISOString().slice(0, 10);
    const opened = await Promise.all(
      traders.flatMap((t) =>
        Array.from({ length: BET_CAPACITY }, (_, i) => open(t, { ticker: i % 2 ? 'AAPL' : 'BTC-USD', direction: 'LONG', target_date: today })),
      ),
    );
    for (const r of opened) assert.equal(r.status, 200, JSON.stringify(r.body));
    const betIds = opened.map((r) => r.body.bet_id as number);

    // The settlement time passes: every instance's worker (each second) now races for these bets.
    await database.db
      .updateTable('bets')
      .set({ settle_at: Date.now() - 1000 })
      .where('id', 'in', betIds)
      .execute();
    await waitUntil(async () => {
      const left = await database.db.selectFrom('bets').select('id').where('id', 'in', betIds).where('status', '=', 'OPEN').execute();
      return left.length === 0;
    }, 'every due bet to be settled');

    const bets = await database.db.selectFrom('bets').selectAll().where('id', 'in', betIds).execute();
    for (const b of bets) {
      assert.equal(b.status, 'CLOSED');
      assert.equal(b.close_reason, 'settlement');
      assert.ok(b.exit_price !== null && b.percentage_gain !== null && b.closed_at !== null);
    }
    // One settlement event per bet in the record, one "settled bet" log line over all instances.
    const entries = await database.db.selectFrom('record_entries').select(['bet_id', 'kind']).where('bet_id', 'in', betIds).execute();
    for (const id of betIds) {
      assert.deepEqual(
        entries
          .filter((e) => Number(e.bet_id) === id)
          .map((e) => e.kind)
          .sort(),
        ['opened', 'settled'],
        `bet ${id}`,
      );
    }
    // Log lines leave each server in buffered writes (flushed at least every 250 ms, src/http/logging.ts):
    // wait for them, then a little longer, so a second line for any bet would be seen too.
    const settledLogs = () => cluster.servers.flatMap((s) => s.logs.filter((l) => l.msg === 'settled bet' && betIds.includes(Number(l.betId))));
    await waitUntil(() => settledLogs().length >= betIds.length, 'every settlement to be logged');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(settledLogs().length, betIds.length);
    // The aggregate is the sum over the bets, for each trader.
    for (const t of traders) {
      const own = bets.filter((b) => b.user_id === t.id);
      const row = await database.db.selectFrom('leaderboard').selectAll().where('user_id', '=', t.id).executeTakeFirstOrThrow();
      assert.equal(row.total_trades, own.length);
      assert.ok(Math.abs(row.total_score - own.reduce((s, b) => s + b.percentage_gain!, 0)) < 1e-9);
    }

    // Every notice is recorded as sent (after which no instance sends it again), then counted.
    const noticeIds = () => database.db.selectFrom('notifications').select(['status']).where('bet_id', 'in', betIds).execute();
    await waitUntil(async () => {
      const rows = await noticeIds();
      return rows.length === betIds.length * 2 && rows.every((r) => r.status === 'sent');
    }, 'every notice to be delivered and recorded');
    const counts = noticeCounts(telegram.calls);
    for (const b of bets) {
      assert.equal(counts.get(`${followerChat}:opened:${b.id}`), 1, `opening notice of bet ${b.id} to the follower`);
      assert.equal(counts.get(`${traderChats.get(b.user_id)}:settled:${b.id}`), 1, `settlement notice of bet ${b.id} to its owner`);
    }
  });

  test('a Telegram update redelivered to several instances at once acts once: one bet from one Tail tap', async () => {
    const trader = await registerUser(bases, 'src');
    const tapper = await registerUser(bases, 'tap');
    const chatId = await linkChat(tapper);
    const source = await open(trader, { ticker: 'MSFT', direction: 'LONG' });
    assert.equal(source.status, 200);
    const tap = callbackUpdate(chatId, `tail:${source.body.bet_id}`);
    const answers = await Promise.all([0, 1, 2, 0, 1, 2].map((i) => webhook(tap, i)));
    for (const a of answers) assert.equal(a.status, 200);
    const copies = await database.db.selectFrom('bets').select('id').where('user_id', '=', tapper.id).execute();
    assert.equal(copies.length, 1);
    for (const a of answers) assert.equal(a.body.method, 'answerCallbackQuery');
  });
});
