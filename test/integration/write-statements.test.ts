// The statements an open and a close make, counted on the real database so
// round trips cannot creep back, and the fan-out of an opening: the same
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

  async function counted(fn: () => Promise<void>): Promise<{ work: string[]; control: string[] }> {
    const all: string[] = [];
    log = all;
    try {
      await fn();
    } finally {
      log = null;
    }
    if (process.env.SHOW_SQL) console.error("----\n" + all.join("\n\n"));
    return { work: all.filter((s) => !CONTROL.test(s)), control: all.filter((s) => CONTROL.test(s)) };
  }

  const call = (u: TestUser, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: u.cookie }, ...(payload ? { payload } : {}) });

  test('an open: the user (locked on PostgreSQL), the insert with its capacity check, notices, chain head, chain entry; no session read once it is known live', async () => {
    const u = await registerAndLogin(t.app, 'st');
    // The session's first use reads its row; later requests find it in the instance's session cache.
    assert.equal((await call(u, 'GET', '/me')).statusCode, 200);
    // The quotes an open and a close use are published before (counted in the next test): the bet's and its benchmark's.
    const warm = async () => {
      for (const ticker of ['AAPL', 'SPY']) assert.equal((await call(u, 'GET', `/price/${ticker}`)).statusCode, 200);
    };
    await warm();
    let betId = 0;
    const { work, control } = await counted(async () => {
      const res = await call(u, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
      assert.equal(res.statusCode, 200, res.body);
      betId = res.json().bet_id;
    });
    const lock = dialect === 'postgres' ? 1 : 0;
    // the user [locked], the insert, chain head, chain entry, followers' chats and mail, followers' push devices
    assert.equal(work.length, 6, work.join('\n'));
    assert.equal(work.filter((s) => /^insert into "notifications"/i.test(s)).length, 2, 'chats and mail in one statement, push devices in one');
    assert.equal(work.filter((s) => /for no key update/i.test(s)).length, lock, 'one user-row lock, not two');
    assert.equal(work.filter((s) => /^insert into "bets"/i.test(s) && /count\(\*\)/i.test(s)).length, 1, 'the capacity check is in the insert');
    assert.deepEqual(
      control.map((s) => s.split(' ')[0]!.toLowerCase()),
      dialect === 'postgres' ? ['begin', 'commit'] : ['begin', 'savepoint', 'release', 'commit'],
    );

    await warm();
    const close = await counted(async () => {
      const res = await call(u, 'POST', '/bet/close', { bet_id: betId });
      assert.equal(res.statusCode, 200, res.body);
    });
    // the bet (before the price), update, leaderboard, [lock], chain head, chain entry, history place, day statistics, league tallies
    assert.equal(close.work.length, 8 + lock, close.work.join('\n'));
    assert.equal(close.work.filter((s) => /^update "bets" set "history_pos"/i.test(s)).length, 1, 'the history place in one statement');
    assert.equal(close.work.filter((s) => /^update "league_members"/i.test(s)).length, 1, 'one statement for every league the bet counts in');
  });

  test('a ranked close (held past its cancel window, committed): one statement more, the ranked board; the ranked day sums ride on the day statistics', async () => {
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
    const lock = dialect === 'postgres' ? 1 : 0;
    assert.equal(close.work.length, 9 + lock, close.work.join('\n'));
    assert.equal(close.work.filter((s) => /^insert into "ranked_leaderboard"/i.test(s)).length, 1);
    assert.equal(close.work.filter((s) => /^insert into "user_day_stats"/i.test(s)).length, 1, 'raw and ranked day sums in one statement');
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

  test('a follow: the follower (locked on PostgreSQL), then one insert holding the live-account and capacity checks; an unfollow: one delete, committed as a transaction', async () => {
    const fan = await registerAndLogin(t.app, 'fw');
    const star = await registerAndLogin(t.app, 'fs');
    assert.equal((await call(fan, 'GET', '/me')).statusCode, 200);
    const follow = await counted(async () => {
      const res = await call(fan, 'POST', '/follow', { followed_id: star.id, action: 'follow' });
      assert.equal(res.statusCode, 200, res.body);
    });
    assert.equal(follow.work.length, 2, follow.work.join('\n'));
    assert.match(follow.work[1]!, /^insert into "follows"/i);
    const unfollow = await counted(async () => {
      const res = await call(fan, 'POST', '/follow', { followed_id: star.id, action: 'unfollow' });
      assert.equal(res.statusCode, 200, res.body);
    });
    assert.equal(unfollow.work.length, 1, unfollow.work.join('\n'));
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
