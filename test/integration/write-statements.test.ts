// The statements an open and a close make, counted on the real database so
// round trips cannot creep back (on PostgreSQL the round trips themselves,
// printed as the test's diagnostics: docs/performance.md), and the fan-out of an opening: the same
// statements whether the trader has no follower or ten thousand, and one
// queued delivery for every linked follower.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { usernameKey } from '../../src/domain/accounts.js';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

/** Transaction control: SQLite's group commit adds its savepoints; counted apart from the work. */
const CONTROL = /^(begin|commit|rollback|savepoint|release)\b/i;

forEachDialect('statements of a write', (dialect) => {
  let t: TestApp;
  let log: string[] | null = null;
  before(async () => {
    t = await createTestApp(dialect, { onQuery: (s) => log?.push(s) });
  });
  after(() => t.close());

  /** The statements fn ran, and on PostgreSQL the round trips they took (a BEGIN rides with the statement after it). */
  async function counted(fn: () => Promise<void>): Promise<{ work: string[]; control: string[]; trips: number | null }> {
    const all: string[] = [];
    const tripsBefore = t.ctx.database.pgRoundTrips;
    log = all;
    try {
      await fn();
    } finally {
      log = null;
    }
    const tripsAfter = t.ctx.database.pgRoundTrips;
    const trips = tripsBefore === null || tripsAfter === null ? null : tripsAfter - tripsBefore;
    return { work: all.filter((s) => !CONTROL.test(s)), control: all.filter((s) => CONTROL.test(s)), trips };
  }

  /** Statements holding `pattern`, alone or riding in another (src/db/together.ts). */
  const holding = (work: string[], pattern: RegExp) => work.filter((s) => pattern.test(s)).length;

  const call = (u: TestUser, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: u.cookie }, ...(payload ? { payload } : {}) });

  test('an open: the user (locked on PostgreSQL, with the chain head), the insert with its capacity check, the chain entry, notices; no session read once it is known live', async (tc) => {
    const u = await registerAndLogin(t.app, 'st');
    // The session's first use reads its row; later requests find it in the instance's session cache.
    assert.equal((await call(u, 'GET', '/me')).statusCode, 200);
    // The quotes an open and a close use are published before (counted in the next test): the bet's and its benchmark's.
    const warm = async () => {
      for (const ticker of ['AAPL', 'SPY']) assert.equal((await call(u, 'GET', `/price/${ticker}`)).statusCode, 200);
    };
    await warm();
    let betId = 0;
    const { work, control, trips } = await counted(async () => {
      const res = await call(u, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
      assert.equal(res.statusCode, 200, res.body);
      betId = res.json().bet_id;
    });
    const pg = dialect === 'postgres';
    // PostgreSQL: the user locked with the chain head, the insert, the chain entry, chats and mail with push devices.
    // SQLite: the user, the insert, the chain head, the chain entry, chats and mail, push devices.
    // Both: the followers' timelines, one statement.
    assert.equal(work.length, pg ? 5 : 7, work.join('\n'));
    assert.equal(holding(work, /insert into "timeline"/i), 1, "every follower's timeline in one statement");
    assert.equal(
      holding(work, /insert into "notifications"/i),
      pg ? 1 : 2,
      'chats and mail in one statement, push devices in one (riding together on PostgreSQL)',
    );
    assert.equal(holding(work, /for no key update/i), pg ? 1 : 0, 'one user-row lock, not two');
    assert.equal(holding(work, /"record_entries"/i), 2, 'the head read (in the lock statement on PostgreSQL) and the entry');
    assert.equal(work.filter((s) => /^insert into "bets"/i.test(s) && /count\(\*\)/i.test(s)).length, 1, 'the capacity check is in the insert');
    assert.deepEqual(
      control.map((s) => s.split(' ')[0]!.toLowerCase()),
      pg ? ['begin', 'commit'] : ['begin', 'savepoint', 'release', 'commit'],
    );
    // Every statement and the COMMIT is a round trip; the BEGIN rides with the first statement.
    if (pg) {
      assert.equal(trips, 6, work.join('\n'));
      tc.diagnostic(`PostgreSQL round trips of an open: ${trips}`);
    }

    await warm();
    const close = await counted(async () => {
      const res = await call(u, 'POST', '/bet/close', { bet_id: betId });
      assert.equal(res.statusCode, 200, res.body);
    });
    // PostgreSQL: the bet (before the price), the update locking the user and reading the chain head, the chain entry,
    // then the history place with leaderboard, day statistics and league tallies riding on it.
    // SQLite: the bet, update, chain head, chain entry, history place, leaderboard, day statistics, league tallies.
    // The followers' timelines: riding with the aggregates on PostgreSQL, a statement of their own on SQLite.
    assert.equal(close.work.length, pg ? 4 : 9, close.work.join('\n'));
    assert.equal(holding(close.work, /update "timeline"/i), 1, "every follower's timeline in one statement");
    assert.equal(holding(close.work, /update "bets" set "history_pos"/i), 1, 'the history place in one statement');
    assert.equal(holding(close.work, /update "league_members"/i), 1, 'one statement for every league the bet counts in');
    assert.equal(holding(close.work, /for no key update/i), pg ? 1 : 0, 'the user-row lock rides on the update');
    if (pg) {
      assert.match(
        close.work[1]!,
        /^with "b" as \(update "bets" set "status"/i,
        'the bet is updated (and its row locked) before its owner is locked',
      );
      assert.equal(close.trips, 5, close.work.join('\n'));
      tc.diagnostic(`PostgreSQL round trips of a close: ${close.trips}`);
    }
  });

  test('a ranked close (held past its cancel window, committed): the ranked board rides with the other aggregates; the ranked day sums ride on the day statistics', async (tc) => {
    const u = await registerAndLogin(t.app, 'rk');
    assert.equal((await call(u, 'GET', '/me')).statusCode, 200);
    const res = await call(u, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(res.statusCode, 200, res.body);
    const betId = res.json().bet_id as number;
    t.clock.advance(CANCEL_WINDOW_MS + 1_000);
    await commitDueBets(t.ctx, { info: () => undefined, warn: () => undefined, error: () => undefined });
    for (const ticker of ['AAPL', 'SPY']) assert.equal((await call(u, 'GET', `/price/${ticker}`)).statusCode, 200);
    const close = await counted(async () => {
      const r = await call(u, 'POST', '/bet/close', { bet_id: betId });
      assert.equal(r.statusCode, 200, r.body);
    });
    const pg = dialect === 'postgres';
    assert.equal(close.work.length, pg ? 4 : 10, close.work.join('\n'));
    assert.equal(holding(close.work, /insert into "ranked_leaderboard"/i), 1);
    assert.equal(holding(close.work, /insert into "user_day_stats"/i), 1, 'raw and ranked day sums in one statement');
    if (pg) {
      assert.equal(close.trips, 5, close.work.join('\n'));
      tc.diagnostic(`PostgreSQL round trips of a ranked close: ${close.trips}`);
    }
  });

  test('a quote is published once per ticker and cache time: one insert of its own, then cache hits', async () => {
    const u = await registerAndLogin(t.app, 'qp');
    const ticker = 'NVDA';
    const first = await counted(async () => {
      assert.equal((await call(u, 'GET', `/price/${ticker}`)).statusCode, 200);
    });
    assert.equal(first.work.filter((s) => /^insert into "quotes"/i.test(s)).length, 1, first.work.join('\n'));
    const again = await counted(async () => {
      assert.equal((await call(u, 'GET', `/price/${ticker}`)).statusCode, 200);
    });
    assert.equal(again.work.filter((s) => /quotes/i.test(s)).length, 0, again.work.join('\n'));
  });

  test("a follow: the two users (locked on PostgreSQL), one insert holding the live-account and capacity checks, the trader's fan-out state, the copy of their bets into the timeline; an unfollow: [the trader's lock], the delete, the bets out of the timeline, the fan-out state, committed as a transaction", async () => {
    const fan = await registerAndLogin(t.app, 'fw');
    const star = await registerAndLogin(t.app, 'fs');
    assert.equal((await call(fan, 'GET', '/me')).statusCode, 200);
    const follow = await counted(async () => {
      const res = await call(fan, 'POST', '/follow', { followed_id: star.id, action: 'follow' });
      assert.equal(res.statusCode, 200, res.body);
    });
    const lock = dialect === 'postgres' ? 1 : 0;
    assert.equal(follow.work.length, 4 + lock, follow.work.join('\n'));
    assert.match(follow.work[1 + lock]!, /^insert into "follows"/i);
    assert.match(follow.work[3 + lock]!, /^insert into "timeline"/i);
    const unfollow = await counted(async () => {
      const res = await call(fan, 'POST', '/follow', { followed_id: star.id, action: 'unfollow' });
      assert.equal(res.statusCode, 200, res.body);
    });
    assert.equal(unfollow.work.length, 3 + lock, unfollow.work.join('\n'));
    assert.match(unfollow.work[lock]!, /^delete from "follows"/i);
    assert.ok(
      unfollow.control.some((s) => /^commit/i.test(s)),
      'the delete commits as a transaction (group commit on SQLite)',
    );
  });

  describe('fan-out of an opening', () => {
    const FOLLOWERS = 10_000;
    let trader: TestUser;
    let lonely: TestUser;

    before(async () => {
      trader = await registerAndLogin(t.app, 'star');
      lonely = await registerAndLogin(t.app, 'lone');
      const now = t.clock.now();
      const ids: number[] = [];
      // In chunks: SQLite binds at most 32,766 values a statement.
      for (let i = 0; i < FOLLOWERS; i += 1_000) {
        const rows = Array.from({ length: Math.min(1_000, FOLLOWERS - i) }, (_, j) => {
          const username = `fan_${dialect}_${i + j}`;
          return { username, username_lower: usernameKey(username), email: `${username}@example.test`, password_hash: 'x', created_at: now };
        });
        ids.push(...(await t.ctx.db.insertInto('users').values(rows).returning('id').execute()).map((r) => r.id));
      }
      for (let i = 0; i < ids.length; i += 1_000) {
        const chunk = ids.slice(i, i + 1_000);
        await t.ctx.db
          .insertInto('follows')
          .values(chunk.map((id) => ({ follower_id: id, followed_id: trader.id, created_at: now })))
          .execute();
        await t.ctx.db
          .insertInto('chat_links')
          .values(chunk.map((id) => ({ user_id: id, transport: t.ctx.chatTransport.name, chat_id: `chat-${id}`, linked_at: now })))
          .execute();
      }
    });

    test('the statements do not grow with the follower count, and every linked follower gets one queued delivery', async () => {
      const open = async (u: TestUser) => {
        let id = 0;
        const { work } = await counted(async () => {
          const res = await call(u, 'POST', '/bet/open', { ticker: 'MSFT', direction: 'SHORT' });
          assert.equal(res.statusCode, 200, res.body);
          id = res.json().bet_id;
        });
        return { id, work };
      };
      // Both opens find the quotes published (a publication is counted in its own test) and their sessions known.
      for (const ticker of ['MSFT', 'SPY']) assert.equal((await call(lonely, 'GET', `/price/${ticker}`)).statusCode, 200);
      assert.equal((await call(trader, 'GET', '/me')).statusCode, 200);
      const none = await open(lonely);
      const many = await open(trader);
      assert.equal(many.work.length, none.work.length, `0 followers: ${none.work.length}, ${FOLLOWERS}: ${many.work.length}`);

      // One queued delivery per linked follower (test/long/fan-out-delivery.test.ts sends them all).
      const rows = await t.ctx.db.selectFrom('notifications').select(['user_id', 'status']).where('bet_id', '=', many.id).execute();
      assert.equal(rows.length, FOLLOWERS);
      assert.equal(new Set(rows.map((r) => r.user_id)).size, FOLLOWERS);
      assert.ok(rows.every((r) => r.status === 'pending'));
    });
  });
});
