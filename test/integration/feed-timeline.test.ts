// The feed's timelines (migration 0034): after any mix of openings, closes,
// cancels, settlements, follows and unfollows, every page of GET /feed is
// the page a recount over follows and bets gives, with heavily followed
// traders (a threshold lowered to 3) and without; a follow copies, an
// unfollow removes; a trader crossing the threshold either way; account
// deletion; the migration's backfill; a page is one index range read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { chunk, type FeedPage } from '../../src/domain/feed.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { listFeed } from '../../src/repositories/feed.js';
import { listFollowed } from '../../src/repositories/follows.js';
import {
  fanOutStatement,
  feedPage,
  fillTimelines,
  heavilyFollowedBy,
  markHeavilyFollowed,
  removeFromTimeline,
} from '../../src/repositories/timeline.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { betRow, insertTestBets } from '../helpers/bet-rows.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { insertTestUser } from '../helpers/users.js';

const MIN = 60_000;
/** Heavily followed at 3 followers, back to the fan-out below 2. */
const HEAVY_AT = 3;
const PAGES: FeedPage[] = [
  { limit: 100, offset: 0 },
  { limit: 1, offset: 0 },
  { limit: 3, offset: 2 },
  { limit: 5, offset: 7 },
  { limit: 2, offset: 40 },
  { limit: 500, offset: 0 },
];
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A small seeded generator (mulberry32), so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

forEachDialect('feed timelines', (dialect) => {
  const apps: Record<'heavy' | 'plain', TestApp> = {} as never;
  before(async () => {
    for (const [name, max] of [
      ['heavy', HEAVY_AT],
      ['plain', 1000],
    ] as const) {
      apps[name] = await createTestApp(dialect, {
        // Sessions outlive the random run's settlement days.
        config: { feedFanOutMaxFollowers: max, capacities: { baseBets: 200, baseFollows: 50 }, sessionTtlSeconds: 365 * 86_400 },
        deps: { prices: new FakePriceProvider({ 'BTC-USD': 50_000, 'ETH-USD': 3_000, SPY: 500, AAPL: 100 }) },
      });
    }
  });
  after(async () => {
    for (const t of Object.values(apps)) await t?.close();
  });

  /** The page straight from follows and bets: every bet of a live followed user, latest event first. */
  const recount = async (t: TestApp, followerId: number, page: FeedPage) => {
    const rows = await t.ctx.db
      .selectFrom('follows as f')
      .innerJoin('users as u', 'u.id', 'f.followed_id')
      .innerJoin('bets as b', 'b.user_id', 'f.followed_id')
      .select('b.id')
      .where('f.follower_id', '=', followerId)
      .where('u.deleted_at', 'is', null)
      .orderBy('b.last_event_at', 'desc')
      .orderBy('b.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map((r) => Number(r.id));
  };
  /** The page as the feed read it before timelines: the union over every followed user's bets_user_event_idx. */
  const union = async (t: TestApp, followerId: number, page: FeedPage) => {
    const followed = (await listFollowed(t.ctx.db, followerId)).map((u) => u.id);
    return (await listFeed(t.ctx.db, followed, page)).map((r) => r.id);
  };
  const feedIds = async (t: TestApp, u: TestUser, page: FeedPage) => {
    const res = await t.app.inject({ method: 'GET', url: `/feed?limit=${page.limit}&offset=${page.offset}`, headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as Array<{ id: number }>).map((i) => i.id);
  };
  const assertFeeds = async (t: TestApp, users: TestUser[], why: string) => {
    for (const u of users) {
      for (const page of PAGES) {
        const expected = await recount(t, u.id, page);
        assert.deepEqual(await feedIds(t, u, page), expected, `${why}: user ${u.id} ${JSON.stringify(page)}`);
        assert.deepEqual(await union(t, u.id, page), expected, `${why}: the union, user ${u.id} ${JSON.stringify(page)}`);
      }
    }
    // The invariant behind it: each row at its bet's time, none of a heavily followed trader, none without a follow.
    const stale = await t.ctx.db
      .selectFrom('timeline as tl')
      .innerJoin('bets as b', 'b.id', 'tl.bet_id')
      .select(['tl.follower_id', 'tl.bet_id'])
      .where((eb) =>
        eb.or([
          eb('tl.last_event_at', '!=', eb.ref('b.last_event_at')),
          eb.exists(eb.selectFrom('heavily_followed as h').select('h.user_id').whereRef('h.user_id', '=', 'b.user_id')),
          eb.not(
            eb.exists(
              eb
                .selectFrom('follows as f')
                .select('f.follower_id')
                .whereRef('f.follower_id', '=', 'tl.follower_id')
                .whereRef('f.followed_id', '=', 'b.user_id'),
            ),
          ),
        ]),
      )
      .execute();
    assert.deepEqual(stale, [], `${why}: timeline rows out of step`);
  };
  const post = (t: TestApp, u: TestUser, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, payload, headers: { cookie: u.cookie } });
  const follow = async (t: TestApp, u: TestUser, id: number, action: 'follow' | 'unfollow' = 'follow') => {
    const res = await post(t, u, '/follow', { followed_id: id, action });
    assert.equal(res.statusCode, 200, res.body);
  };
  const timelineOf = async (t: TestApp, followerId: number) =>
    (await t.ctx.db.selectFrom('timeline').select('bet_id').where('follower_id', '=', followerId).orderBy('bet_id').execute()).map((r) =>
      Number(r.bet_id),
    );
  const isHeavy = async (t: TestApp, userId: number) =>
    (await t.ctx.db.selectFrom('heavily_followed').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;

  for (const mode of ['heavy', 'plain'] as const) {
    test(`random opens, closes, cancels, settlements, follows and unfollows: every page equals the recount (${mode === 'heavy' ? `heavily followed at ${HEAVY_AT}` : 'all fanned out'})`, async () => {
      const t = apps[mode];
      t.clock.set('2026-05-04T12:00:00Z');
      const rnd = random(mode === 'heavy' ? 35 : 36);
      const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const users: TestUser[] = [];
      for (let i = 0; i < 9; i++) users.push(await registerAndLogin(t.app, `tl${i}`));
      const open: Array<{ id: number; owner: TestUser; at: number }> = [];
      let heavySeen = 0;
      let lightAgain = 0;
      let wasHeavy = new Set<number>();
      // Follows outweigh unfollows, then the other way round, so traders cross the threshold both ways.
      for (let step = 1; step <= 330; step++) {
        const followShare = step <= 165 ? 0.7 : 0.25;
        const r = rnd();
        const u = pick(users);
        if (r < 0.3) {
          const settles = rnd() < 0.25;
          const body = {
            ticker: pick(['BTC-USD', 'ETH-USD']),
            direction: pick(['LONG', 'SHORT']),
            ...(settles ? { target_date: new Date(t.clock.now()).toISOString().slice(0, 10) } : {}),
          };
          const res = await post(t, u, '/bet/open', body);
          assert.equal(res.statusCode, 200, res.body);
          open.push({ id: res.json().bet_id, owner: u, at: t.clock.now() });
        } else if (r < 0.45 && open.length > 0) {
          const i = Math.floor(rnd() * open.length);
          const bet = open[i]!;
          const res = await post(t, bet.owner, '/bet/close', { bet_id: bet.id });
          assert.ok(res.statusCode < 500, res.body);
          open.splice(i, 1);
        } else if (r < 0.55 && open.length > 0) {
          const i = Math.floor(rnd() * open.length);
          const bet = open[i]!;
          const res = await t.app.inject({ method: 'DELETE', url: `/bet/${bet.id}`, headers: { cookie: bet.owner.cookie } });
          assert.ok(res.statusCode < 500, res.body);
          if (res.statusCode === 200) open.splice(i, 1);
        } else if (r < 0.85) {
          const other = pick(users);
          if (other.id !== u.id) await follow(t, u, other.id, rnd() < followShare ? 'follow' : 'unfollow');
        } else if (r < 0.88) {
          // Past midnight UTC: the bets due today settle.
          t.clock.set(new Date(t.clock.now()).toISOString().slice(0, 10) + 'T23:59:00Z');
          t.clock.advance(5 * MIN);
          await new PeriodicJob(settlementJob(t.ctx, quiet)).runOnce();
          for (let i = open.length - 1; i >= 0; i--) {
            const row = await t.ctx.db.selectFrom('bets').select('status').where('id', '=', open[i]!.id).executeTakeFirstOrThrow();
            if (row.status !== 'OPEN') open.splice(i, 1);
          }
        }
        // Often no time passes, so events share an instant and the id breaks the tie.
        if (rnd() < 0.6) t.clock.advance(Math.floor(rnd() * 90_000));
        const heavyNow = new Set((await t.ctx.db.selectFrom('heavily_followed').select('user_id').execute()).map((h) => Number(h.user_id)));
        heavySeen += [...heavyNow].filter((id) => !wasHeavy.has(id)).length;
        lightAgain += [...wasHeavy].filter((id) => !heavyNow.has(id)).length;
        wasHeavy = heavyNow;
        if (step % 55 === 0) await assertFeeds(t, users, `step ${step}`);
      }
      const ends = await t.ctx.db
        .selectFrom('bets')
        .select('close_reason')
        .distinct()
        .where(
          'user_id',
          'in',
          users.map((u) => u.id),
        )
        .execute();
      assert.deepEqual(ends.map((e) => e.close_reason ?? 'open').sort(), ['cancel', 'open', 'settlement', 'user'], 'every kind of event happened');
      if (mode === 'heavy') {
        assert.ok(heavySeen > 0, 'some trader became heavily followed');
        assert.ok(lightAgain > 0, 'some trader returned to the fan-out');
      } else {
        assert.equal(heavySeen, 0);
      }
    });
  }

  test("a follow copies the trader's bets into the timeline at their event times; an unfollow removes them", async () => {
    const t = apps.plain;
    const me = await registerAndLogin(t.app, 'fc');
    const trader = await insertTestUser(t.ctx, uniqueName('tr'));
    const now = t.clock.now();
    const bets = await insertTestBets(t.ctx, [
      { userId: trader, openedAt: now - 10 * MIN },
      { userId: trader, openedAt: now - 20 * MIN, end: { status: 'CLOSED', at: now - 5 * MIN, exit: 101, gain: 1 } },
      { userId: trader, openedAt: now - 30 * MIN, end: { status: 'CANCELLED', at: now - 29 * MIN } },
    ]);
    assert.deepEqual(await timelineOf(t, me.id), []);
    await follow(t, me, trader);
    const rows = await t.ctx.db
      .selectFrom('timeline')
      .select(['bet_id', 'last_event_at'])
      .where('follower_id', '=', me.id)
      .orderBy('bet_id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.bet_id), Number(r.last_event_at)]),
      bets.map((b) => [b.id, b.last_event_at]),
    );
    // Cancelled bets show, as they always have.
    assert.equal((await feedIds(t, me, PAGES[0]!)).length, 3);
    await follow(t, me, trader, 'follow');
    assert.equal((await timelineOf(t, me.id)).length, 3, 'following again changes nothing');
    await follow(t, me, trader, 'unfollow');
    assert.deepEqual(await timelineOf(t, me.id), []);
    assert.deepEqual(await feedIds(t, me, PAGES[0]!), []);
  });

  test('a trader crossing the threshold: heavily followed at 3 followers (their bets leave the timelines, read at read time), back below 2; every feed stays right', async () => {
    const t = apps.heavy;
    const trader = await registerAndLogin(t.app, 'cx');
    const other = await registerAndLogin(t.app, 'co');
    const fans = [await registerAndLogin(t.app, 'f1'), await registerAndLogin(t.app, 'f2'), await registerAndLogin(t.app, 'f3')];
    const opened: number[] = [];
    const openBet = async (who: TestUser) => {
      const res = await post(t, who, '/bet/open', { ticker: 'BTC-USD', direction: 'LONG' });
      assert.equal(res.statusCode, 200, res.body);
      opened.push(res.json().bet_id);
      t.clock.advance(MIN);
      return res.json().bet_id as number;
    };
    await openBet(trader);
    await openBet(other);
    for (const f of fans) await follow(t, f, other.id);
    // `other` is heavily followed now; the trader's two first followers get copies.
    assert.equal(await isHeavy(t, other.id), true);
    await follow(t, fans[0]!, trader.id);
    await follow(t, fans[1]!, trader.id);
    await openBet(trader);
    assert.equal(await isHeavy(t, trader.id), false);
    assert.equal((await timelineOf(t, fans[0]!.id)).length, 2);
    await assertFeeds(t, fans, 'two followers');

    await follow(t, fans[2]!, trader.id);
    assert.equal(await isHeavy(t, trader.id), true, 'heavily followed at the threshold');
    for (const f of fans) assert.deepEqual(await timelineOf(t, f.id), [], "the trader's bets left every timeline");
    assert.deepEqual((await heavilyFollowedBy(t.ctx.db, fans[0]!.id)).sort(), [trader.id, other.id].sort());
    // A deleted account is never merged in, whatever rows still name it.
    await t.ctx.db.updateTable('users').set({ deleted_at: t.clock.now() }).where('id', '=', other.id).execute();
    assert.deepEqual(await heavilyFollowedBy(t.ctx.db, fans[0]!.id), [trader.id]);
    await t.ctx.db.updateTable('users').set({ deleted_at: null }).where('id', '=', other.id).execute();
    const closed = await openBet(trader);
    assert.equal((await post(t, trader, '/bet/close', { bet_id: closed })).statusCode, 200);
    t.clock.advance(MIN);
    assert.deepEqual(await timelineOf(t, fans[0]!.id), [], 'no fan-out while heavily followed');
    await assertFeeds(t, fans, 'heavily followed');
    assert.equal((await feedIds(t, fans[0]!, PAGES[0]!)).length, 4, "the trader's three bets and the other's one");

    // 2 followers: still heavily followed (it returns below half the threshold).
    await follow(t, fans[2]!, trader.id, 'unfollow');
    assert.equal(await isHeavy(t, trader.id), true);
    await assertFeeds(t, fans, 'hysteresis');
    await follow(t, fans[1]!, trader.id, 'unfollow');
    assert.equal(await isHeavy(t, trader.id), false, 'back to the fan-out below 2 followers');
    assert.equal((await timelineOf(t, fans[0]!.id)).length, 3, "the trader's three bets are back in the remaining follower's timeline");
    assert.deepEqual(await timelineOf(t, fans[1]!.id), []);
    await openBet(trader);
    await assertFeeds(t, fans, 'back to the fan-out');
  });

  test("concurrent follows, unfollows and events of one trader: every follower's timeline ends right (the trader's row lock orders them on PostgreSQL)", async () => {
    for (const t of Object.values(apps)) {
      const trader = await registerAndLogin(t.app, 'cc');
      const fans: TestUser[] = [];
      for (let i = 0; i < 5; i++) fans.push(await registerAndLogin(t.app, `cf${i}`));
      const openBet = async () => {
        const res = await post(t, trader, '/bet/open', { ticker: 'BTC-USD', direction: 'LONG' });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().bet_id as number;
      };
      const open = [await openBet(), await openBet()];
      for (let round = 0; round < 4; round++) {
        t.clock.advance(MIN);
        const toClose = open.splice(0, 1);
        const results = await Promise.all([
          ...fans.map((f, i) => post(t, f, '/follow', { followed_id: trader.id, action: (i + round) % 3 === 0 ? 'unfollow' : 'follow' })),
          post(t, trader, '/bet/open', { ticker: 'BTC-USD', direction: 'SHORT' }),
          ...toClose.map((id) => post(t, trader, '/bet/close', { bet_id: id })),
        ]);
        for (const res of results) assert.equal(res.statusCode, 200, res.body);
        open.push(results[fans.length]!.json().bet_id);
        await assertFeeds(t, fans, `round ${round}`);
      }
    }
  });

  test('following more heavily followed traders than one statement holds: the groups merged give the same page', async () => {
    const t = apps.heavy;
    const me = await registerAndLogin(t.app, 'gm');
    const stars = await Promise.all(Array.from({ length: 5 }, () => insertTestUser(t.ctx, uniqueName('st'))));
    const plain = await insertTestUser(t.ctx, uniqueName('pl'));
    const t0 = t.clock.now() - 500 * MIN;
    await t.ctx.db
      .insertInto('heavily_followed')
      .values(stars.map((s) => ({ user_id: s })))
      .execute();
    await t.ctx.db
      .insertInto('follows')
      .values([...stars, plain].map((s) => ({ follower_id: me.id, followed_id: s, created_at: t0 })))
      .execute();
    await insertTestBets(
      t.ctx,
      Array.from({ length: 48 }, (_, i) => ({ userId: [...stars, plain][(i * 7) % 6]!, openedAt: t0 + ((i * 13) % 17) * MIN })),
    );
    const heavy = await heavilyFollowedBy(t.ctx.db, me.id);
    assert.deepEqual(
      heavy,
      [...stars].sort((a, b) => a - b),
    );
    for (const page of PAGES) {
      const whole = await feedPage(t.ctx.db, me.id, heavy, page);
      assert.deepEqual(
        whole.map((r) => r.id),
        await recount(t, me.id, page),
        JSON.stringify(page),
      );
      const grouped = await feedPage(t.ctx.db, me.id, heavy, page, 3);
      assert.deepEqual(
        grouped.map((r) => r.id),
        whole.map((r) => r.id),
        JSON.stringify(page),
      );
    }
  });

  test("account deletion: the account's timeline and its bets in its followers' timelines go; its bets leave the feeds", async () => {
    for (const t of Object.values(apps)) {
      const fan = await registerAndLogin(t.app, 'df');
      const trader = await registerAndLogin(t.app, 'dt');
      const stays = await registerAndLogin(t.app, 'ds');
      for (const u of [trader, stays]) {
        assert.equal((await post(t, u, '/bet/open', { ticker: 'ETH-USD', direction: 'SHORT' })).statusCode, 200);
        await follow(t, fan, u.id);
      }
      await follow(t, trader, stays.id);
      assert.equal((await timelineOf(t, fan.id)).length, 2);
      assert.equal((await timelineOf(t, trader.id)).length, 1);
      const res = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: trader.cookie }, payload: { password: PASSWORD } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await timelineOf(t, trader.id), []);
      assert.equal((await timelineOf(t, fan.id)).length, 1);
      await assertFeeds(t, [fan], 'after a deletion');
      assert.equal((await feedIds(t, fan, PAGES[0]!)).length, 1);
    }
  });

  test('migration 0034 fills the timelines from the follows and bets there, and marks traders with 1,000 followers or more heavily followed; 0038 rekeys them and back', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0033_history_positions');
      const { db, insertUser } = migrationFixture(handle);
      const a = await insertUser('tl_a');
      const b = await insertUser('tl_b');
      const gone = await insertUser('tl_gone');
      const star = await insertUser('tl_star');
      await db.updateTable('users').set({ deleted_at: 5 }).where('id', '=', gone).execute();
      const bet = (userId: number, at: number) => {
        const { history_pos: _, ...r } = betRow({ userId, openedAt: at }) as ReturnType<typeof betRow> & { history_pos?: unknown };
        return r;
      };
      const ids = (
        await db
          .insertInto('bets')
          .values([bet(a, 1_000), bet(b, 2_000), bet(gone, 3_000), bet(star, 4_000), bet(a, 5_000)])
          .returning('id')
          .execute()
      ).map((r) => Number(r.id));
      const fans: number[] = [];
      for (const part of chunk(
        Array.from({ length: 1000 }, (_, i) => `tl_fan_${i}`),
        250,
      )) {
        const rows = await db
          .insertInto('users')
          .values(part.map((n) => ({ username: n, username_lower: n, email: `${n}@x.test`, password_hash: 'x', created_at: 0 })))
          .returning('id')
          .execute();
        fans.push(...rows.map((r) => Number(r.id)));
      }
      for (const part of chunk(fans, 250)) {
        await db
          .insertInto('follows')
          .values(part.map((f) => ({ follower_id: f, followed_id: star, created_at: 0 })))
          .execute();
      }
      await db
        .insertInto('follows')
        .values([
          { follower_id: b, followed_id: a, created_at: 0 },
          { follower_id: b, followed_id: gone, created_at: 0 },
          { follower_id: b, followed_id: star, created_at: 0 },
          { follower_id: a, followed_id: b, created_at: 0 },
        ])
        .execute();
      await migrateTestDatabaseTo(handle, '0034_timeline');
      const timelineRows = async () =>
        (await db.selectFrom('timeline').select(['follower_id', 'bet_id', 'last_event_at']).orderBy('follower_id').orderBy('bet_id').execute()).map(
          (r) => [Number(r.follower_id), Number(r.bet_id), Number(r.last_event_at)],
        );
      const rows = await timelineRows();
      assert.deepEqual(
        rows,
        [
          [a, ids[1]!, 2_000],
          [b, ids[0]!, 1_000],
          [b, ids[4]!, 5_000],
        ].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!),
      );
      const heavy = await db.selectFrom('heavily_followed').select('user_id').execute();
      assert.deepEqual(
        heavy.map((h) => Number(h.user_id)),
        [star],
      );
      // 0038 keys the same rows by (follower, time, bet), timeline_page_idx gone; its down brings both back.
      const keyOf = async () =>
        dialect === 'sqlite'
          ? (handle.sqlite!.prepare("select group_concat(sql, ';') as s from sqlite_master where tbl_name = 'timeline'").get() as { s: string }).s
          : (
              await sql<{
                s: string;
              }>`select string_agg(indexdef, ';') as s from pg_indexes where schemaname = current_schema() and tablename = 'timeline'`.execute(db)
            ).rows[0]!.s;
      const sameRows = async (why: string) => assert.deepEqual(await timelineRows(), rows, why);
      await migrateTestDatabaseTo(handle, '0038_timeline_by_event');
      await sameRows('0038 keeps every row');
      assert.match(
        await keyOf(),
        /primary key \("?follower_id"?, "?last_event_at"?, "?bet_id"?\)|timeline_pk ON \S+ USING btree \(follower_id, last_event_at, bet_id\)/i,
      );
      assert.doesNotMatch(await keyOf(), /timeline_page_idx/);
      if (dialect === 'sqlite') assert.match(await keyOf(), /without rowid/i);
      await migrateTestDatabaseTo(handle, '0037_uncommitted_by_status');
      await sameRows('its down keeps every row');
      assert.match(await keyOf(), /timeline_page_idx/);
      assert.match(await keyOf(), /primary key \("?follower_id"?, "?bet_id"?\)|timeline_pk ON \S+ USING btree \(follower_id, bet_id\)/i);
      await migrateTestDatabaseTo(handle, '0033_history_positions');
      const tables = (await handle.db.introspection.getTables()).map((t) => t.name);
      assert.ok(!tables.includes('timeline') && !tables.includes('heavily_followed'), 'down drops both tables');
    } finally {
      await handle.close();
    }
  });

  describe('query plans', () => {
    let follower: number;
    let star: number;
    before(async () => {
      const t = apps.plain;
      const db = t.ctx.db;
      const now = t.clock.now();
      follower = await insertTestUser(t.ctx, uniqueName('qp'));
      star = await insertTestUser(t.ctx, uniqueName('qs'));
      const traders = await Promise.all(Array.from({ length: 40 }, () => insertTestUser(t.ctx, uniqueName('qt'))));
      const bets = traders.flatMap((u, i) => Array.from({ length: 300 }, (_, k) => betRow({ userId: u, openedAt: now - (i * 300 + k) * 1000 })));
      for (const part of chunk(bets, 1000)) await db.insertInto('bets').values(part).execute();
      await db
        .insertInto('follows')
        .values(traders.map((u) => ({ follower_id: follower, followed_id: u, created_at: now })))
        .execute();
      await fillTimelines(db, traders);
      if (dialect === 'postgres') await sql`vacuum analyze timeline, bets, users, follows`.execute(db);
      else await sql`analyze`.execute(db);
    });

    const planOf = async (heavy: number[], page: FeedPage) => {
      const t = apps.plain;
      const queries = await capturedQueries(t.ctx.db, (db) => feedPage(db, follower, heavy, page));
      assert.equal(queries.length, 1);
      return explain(t.database, queries[0]!, { noSeqScan: true });
    };

    test("a page at offset 0 and at offset 10,000 is one range of the timeline's key, newest first, then the page rows by primary key", async () => {
      assert.equal((await feedPage(apps.plain.ctx.db, follower, [], { limit: 100, offset: 10_000 })).length, 100);
      for (const offset of [0, 10_000]) {
        const plan = await planOf([], { limit: 100, offset });
        assert.doesNotMatch(plan, /\bSCAN timeline\b|Seq Scan|bets_user_event_idx/, plan);
        if (dialect === 'sqlite') {
          assert.match(plan, /SEARCH timeline USING PRIMARY KEY \(follower_id=\?\)/, plan);
          // The range is read in the index's order and its rows joined to it in that order: no sort at all.
          assert.doesNotMatch(plan, /USE TEMP B-TREE/, plan);
          assert.match(plan, /SEARCH bets USING INTEGER PRIMARY KEY/, plan);
        } else {
          assert.match(plan, /Index Only Scan Backward using timeline_pk/, plan);
          assert.match(plan, /bets_pkey/, plan);
        }
      }
    });

    test("with a heavily followed trader: the timeline's range and that trader's bets_user_event_idx, merged", async () => {
      const plan = await planOf([star], { limit: 50, offset: 20 });
      assert.doesNotMatch(plan, /\bSCAN timeline\b|Seq Scan/, plan);
      if (dialect === 'sqlite') {
        assert.match(plan, /SEARCH timeline USING PRIMARY KEY \(follower_id=\?\)/, plan);
        assert.match(plan, /SEARCH bets USING COVERING INDEX bets_user_event_idx \(user_id=\?\)/, plan);
      } else {
        assert.match(plan, /Index Only Scan Backward using timeline_pk/, plan);
        assert.match(plan, /Index Only Scan Backward using bets_user_event_idx/, plan);
      }
    });

    test("a bet's finishing event, an unfollow and a trader leaving the timelines find each follower's row by the timeline's key, never by a walk of a timeline", async () => {
      const t = apps.plain;
      const [trader] = (await listFollowed(t.ctx.db, follower)).map((u) => u.id);
      const bet = await t.ctx.db.selectFrom('bets').selectAll().where('user_id', '=', trader!).limit(1).executeTakeFirstOrThrow();
      const move = await explain(t.database, fanOutStatement(t.ctx.db, { kind: 'closed', bet: { ...bet, last_event_at: bet.opened_at + 1 } }), {
        noSeqScan: true,
      });
      // Someone who follows no one: the unfollow's statement runs and removes nothing.
      const stranger = await insertTestUser(t.ctx, uniqueName('qx'));
      const [unfollow] = await capturedQueries(t.ctx.db, (db) => removeFromTimeline(db, stranger, trader!));
      const remove = await explain(t.database, unfollow!, { noSeqScan: true });
      // A trader marked heavily followed (and an account deleted) leaves every follower's timeline by the same seeks.
      const lonely = await insertTestUser(t.ctx, uniqueName('qy'));
      const marking = await capturedQueries(t.ctx.db, (db) => markHeavilyFollowed(db, lonely));
      const leave = await explain(t.database, marking.find((q) => /^delete from "timeline"/i.test(q.sql))!, { noSeqScan: true });
      for (const plan of [move, remove, leave]) {
        assert.doesNotMatch(plan, /\bSCAN timeline\b|Seq Scan on timeline/, plan);
        // The unfollow's seek takes (follower, time) from the row value and checks the bet in the row it lands on.
        if (dialect === 'sqlite') assert.match(plan, /SEARCH timeline USING PRIMARY KEY \(follower_id=\? AND last_event_at=\?/, plan);
        else assert.match(plan, /Index (Only )?Scan using timeline_pk/, plan);
      }
    });
  });
});
