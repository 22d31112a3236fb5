import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { copySqliteToPostgres, dependencyOrder } from '../../src/ops/copy.js';
import type { Db } from '../../src/db/database.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { openTestDatabase, PG_SKIP, PG_URL, type TestDatabase } from '../helpers/db.js';

test('dependencyOrder puts referenced tables first and ignores self-references', () => {
  const refs = new Map([
    ['bets', ['users', 'bets']],
    ['follows', ['users', 'users']],
    ['leaderboard', ['users']],
    ['users', []],
    ['sessions', ['users']],
  ]);
  const order = dependencyOrder([...refs.keys()], refs);
  assert.equal(order[0], 'users');
  assert.equal(order.length, 5);
  assert.throws(
    () =>
      dependencyOrder(
        ['a', 'b'],
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    /cycle/,
  );
});

/** A SQLite service with users, sessions, follows, bets (open, closed, cancelled, a tail, one ranked) and matching leaderboards. */
async function populated(): Promise<TestApp & { cookie: string }> {
  const t = await createTestApp('sqlite');
  const a = await registerAndLogin(t.app, 'cpa');
  const b = await registerAndLogin(t.app, 'cpb');
  const db: Db = t.ctx.db;
  const now = t.clock.now();
  const bet = (
    user: number,
    status: 'OPEN' | 'CLOSED' | 'CANCELLED',
    gain: number | null,
    source: number | null = null,
    ranked: number | null = null,
  ) =>
    db
      .insertInto('bets')
      .values({
        user_id: user,
        ticker: 'AAPL',
        direction: 'LONG',
        status,
        entry_price: 100,
        exit_price: gain === null ? null : 100 + gain,
        percentage_gain: gain,
        opened_at: now,
        closed_at: status === 'OPEN' ? null : now,
        last_event_at: now,
        close_reason: status === 'OPEN' ? null : status === 'CANCELLED' ? 'cancel' : 'user',
        source_bet_id: source,
        source_kind: source === null ? null : 'tail',
        committed_price: ranked === null ? null : 100,
        ranked_gain: ranked,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  const first = await bet(a.id, 'CLOSED', 12.5, null, 12.5);
  await bet(a.id, 'CLOSED', -2.25);
  await bet(a.id, 'OPEN', null);
  await bet(a.id, 'CANCELLED', null);
  await bet(b.id, 'CLOSED', 3, first.id);
  await db
    .insertInto('leaderboard')
    .values([
      { user_id: a.id, total_score: 10.25, total_trades: 2 },
      { user_id: b.id, total_score: 3, total_trades: 1 },
    ])
    .execute();
  await db.insertInto('ranked_leaderboard').values({ user_id: a.id, total_score: 12.5, total_trades: 1 }).execute();
  // Its day row; the trigger adds it to the windows (migration 0035).
  const day = new Date(now).toISOString().slice(0, 10);
  await db
    .insertInto('user_day_stats')
    .values({
      user_id: a.id,
      day,
      trades: 2,
      score_sum: 10.25,
      wins: 1,
      alpha_count: 0,
      alpha_sum: 0,
      alpha_sq_sum: 0,
      ranked_trades: 1,
      ranked_score_sum: 12.5,
    })
    .execute();
  await db.insertInto('follows').values({ follower_id: b.id, followed_id: a.id, created_at: now }).execute();
  return { ...t, cookie: a.cookie };
}

const sqlitePath = (t: TestApp) => t.database.url.slice('sqlite:'.length);

describe('db:copy SQLite → PostgreSQL', { skip: PG_URL ? false : PG_SKIP }, () => {
  test('every row arrives, sequences continue after the copied ids, counts and leaderboard verified', async () => {
    const src = await populated();
    const target: TestDatabase = await openTestDatabase('postgres');
    try {
      const result = await copySqliteToPostgres({ dialect: 'sqlite', path: sqlitePath(src) }, { dialect: 'postgres', url: target.url });
      const rows = Object.fromEntries(result.tables.map((t) => [t.name, t.rows]));
      assert.equal(rows.users, 2);
      assert.equal(rows.bets, 5);
      assert.equal(rows.follows, 1);
      assert.equal(rows.leaderboard, 2);
      assert.equal(rows.sessions, 2);
      // The generated secrets move too: the JWT secret, so sessions stay valid; the Web Push keys, so devices stay subscribed.
      const settings = (await target.db.selectFrom('settings').select('key').execute()).map((r) => r.key).sort();
      assert.equal(rows.settings, settings.length);
      assert.ok(settings.includes('jwt_secret'), settings.join(', '));
      assert.ok(
        settings.some((k) => k.startsWith('vapid')),
        settings.join(', '),
      );
      const names = result.tables.map((t) => t.name);
      assert.ok(names.indexOf('users') < names.indexOf('bets'));

      // The service runs on the copy: old sessions work, new ids do not collide.
      const moved = await buildApp(testConfig(), { database: target, logger: false, clock: src.clock });
      try {
        const me = await moved.inject({ method: 'GET', url: '/me', headers: { cookie: src.cookie } });
        assert.equal(me.statusCode, 200, 'a session from before the move still works');
      } finally {
        await moved.close();
      }
      const srcUsers = await src.ctx.db.selectFrom('users').selectAll().orderBy('id').execute();
      const dstUsers = await target.db.selectFrom('users').selectAll().orderBy('id').execute();
      assert.deepEqual(dstUsers, srcUsers);
      const { rows: next } = await sql<{ id: number }>`insert into users (username, username_lower, email, password_hash, created_at)
        values ('after_copy', 'after_copy', 'after@example.test', 'x', 0) returning id`.execute(target.db);
      assert.equal(next[0].id, Math.max(...srcUsers.map((u) => u.id)) + 1);
      // The windows arrive as they were, each day row counted once (the triggers added nothing during the copy).
      for (const table of ['window_starts', 'user_window_stats'] as const) {
        const read = (db: typeof src.ctx.db) => db.selectFrom(table).selectAll().orderBy('period').execute();
        const copiedRows = await read(target.db);
        assert.deepEqual(
          copiedRows.map((r) => ({ ...r })),
          (await read(src.ctx.db)).map((r) => ({ ...r })),
          table,
        );
      }
      assert.equal((await target.db.selectFrom('user_window_stats').selectAll().where('period', '=', 'all').executeTakeFirstOrThrow()).trades, 2);
      const tail = await target.db.selectFrom('bets').select(['source_bet_id']).where('source_kind', '=', 'tail').executeTakeFirstOrThrow();
      assert.ok(tail.source_bet_id);
    } finally {
      await target.close();
      await src.close();
    }
  });

  test('refuses a target that is not empty, and reports a leaderboard that does not add up', async () => {
    const src = await populated();
    const target = await openTestDatabase('postgres');
    try {
      const from = { dialect: 'sqlite' as const, path: sqlitePath(src) };
      await copySqliteToPostgres(from, { dialect: 'postgres', url: target.url });
      await assert.rejects(copySqliteToPostgres(from, { dialect: 'postgres', url: target.url }), /not empty/);
    } finally {
      await target.close();
    }
    await src.ctx.db.updateTable('leaderboard').set({ total_score: 99 }).execute();
    const second = await openTestDatabase('postgres');
    try {
      await assert.rejects(
        copySqliteToPostgres({ dialect: 'sqlite', path: sqlitePath(src) }, { dialect: 'postgres', url: second.url }),
        /leaderboard does not equal the sum over CLOSED bets/,
      );
    } finally {
      await second.close();
      await src.close();
    }
  });

  test('reports a ranked board that does not add up', async () => {
    const src = await populated();
    await src.ctx.db.updateTable('ranked_leaderboard').set({ total_score: 99 }).execute();
    const target = await openTestDatabase('postgres');
    try {
      await assert.rejects(
        copySqliteToPostgres({ dialect: 'sqlite', path: sqlitePath(src) }, { dialect: 'postgres', url: target.url }),
        /ranked board does not equal the sum over ranked bets/,
      );
    } finally {
      await target.close();
      await src.close();
    }
  });

  test('npm run db:copy -- FROM TO copies and reports', async () => {
    const src = await populated();
    const target = await openTestDatabase('postgres');
    try {
      const root = path.resolve(import.meta.dirname, '../..');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/db-copy.ts', src.database.url, target.url], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '' },
      });
      assert.match(stdout, /users: 2 rows/);
      assert.match(stdout, /verified/);
    } finally {
      await target.close();
      await src.close();
    }
  });
});

test('db:copy refuses a non-SQLite source and a non-PostgreSQL target', async () => {
  await assert.rejects(
    copySqliteToPostgres({ dialect: 'postgres', url: 'postgres://a@127.0.0.1/x' }, { dialect: 'postgres', url: 'postgres://a@127.0.0.1/y' }),
    /FROM must be/,
  );
  await assert.rejects(copySqliteToPostgres({ dialect: 'sqlite', path: '/tmp/x.db' }, { dialect: 'sqlite', path: '/tmp/y.db' }), /TO must be/);
});
