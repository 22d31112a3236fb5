// The benchmark generator on a real database: the app's migrations, bulk rows,
// indexes rebuilt as the migrations define them, a leaderboard equal to the
// aggregate of CLOSED bets, and ids that keep counting after the load.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { databaseUrlOf, generate, type GenerateTarget } from '../../bench/lib/generate.js';
import { PRESETS } from '../../bench/lib/presets.js';
import { ROLES } from '../../bench/lib/roles.js';
import { type RecordEvent, verifyChain } from '../../src/domain/record.js';
import { type DatabaseHandle, type Dialect, migrateToLatest, openDatabase } from '../../src/db/database.js';
import { parseDatabaseUrl } from '../../src/config.js';
import { forEachDialect, openTestDatabase, PG_URL } from '../helpers/db.js';

async function indexNames(handle: DatabaseHandle): Promise<string[]> {
  const q =
    handle.dialect === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and sql is not null order by name`
      : sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()
          union all select conname from pg_constraint where connamespace = current_schema()::regnamespace order by 1`;
  return (await q.execute(handle.db)).rows.map((r) => r.name).filter((n) => !n.startsWith('kysely_'));
}

forEachDialect('bench generator', (dialect: Dialect) => {
  let target: GenerateTarget;
  let handle: DatabaseHandle;
  let dir: string | null = null;
  const summaryLines: string[] = [];

  before(async () => {
    if (dialect === 'sqlite') {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gen-'));
      target = { dialect: 'sqlite', path: path.join(dir, 'tiny.db') };
    } else {
      target = { dialect: 'postgres', url: PG_URL!, schema: `bench_t_${randomBytes(4).toString('hex')}` };
    }
    await generate(PRESETS.tiny, target, (l) => summaryLines.push(l));
    const config = parseDatabaseUrl(databaseUrlOf(target));
    handle = openDatabase(config, target.dialect === 'postgres' ? { pgSchema: target.schema } : {});
  });
  after(async () => {
    await handle.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (target.dialect === 'postgres') {
      const c = new pg.Client({ connectionString: PG_URL! });
      await c.connect();
      await c.query(`drop schema if exists ${target.schema} cascade`);
      await c.end();
    }
  });

  test('loads the preset and prints progress', async () => {
    const count = async (table: 'users' | 'bets' | 'follows') =>
      Number(
        (
          await handle.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await count('users'), PRESETS.tiny.users);
    assert.equal(await count('bets'), PRESETS.tiny.finishedBets + PRESETS.tiny.openBets);
    assert.ok((await count('follows')) > PRESETS.tiny.followers * PRESETS.tiny.followsEach);
    const linkedFollowers = async (followed: number) =>
      Number(
        (
          await handle.db
            .selectFrom('follows')
            .innerJoin('chat_links', 'chat_links.user_id', 'follows.follower_id')
            .where('follows.followed_id', '=', followed)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await linkedFollowers(ROLES.fanOutMid.id), PRESETS.tiny.fanOut[0]);
    assert.equal(await linkedFollowers(ROLES.fanOutLarge.id), PRESETS.tiny.fanOut[1]);
    assert.ok(summaryLines.some((l) => /finished bets\s+6,500 \/ 6,500/.test(l)));
    assert.ok(summaryLines.some((l) => l.startsWith('Done in')));
  });

  test("the feed's timelines hold every follow's bets, as the follows and events would have written them (no trader of this preset is heavily followed)", async () => {
    const n = async (q: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) => Number((await q.executeTakeFirstOrThrow()).n);
    const timeline = await n(handle.db.selectFrom('timeline').select((eb) => eb.fn.countAll().as('n')));
    const expected = await n(
      handle.db
        .selectFrom('follows')
        .innerJoin('bets', 'bets.user_id', 'follows.followed_id')
        .select((eb) => eb.fn.countAll().as('n')),
    );
    assert.ok(timeline > 0);
    assert.equal(timeline, expected);
    assert.equal(await n(handle.db.selectFrom('heavily_followed').select((eb) => eb.fn.countAll().as('n'))), 0);
    const feedUser = await n(
      handle.db
        .selectFrom('timeline')
        .where('follower_id', '=', ROLES.feed.id)
        .select((eb) => eb.fn.countAll().as('n')),
    );
    assert.ok(feedUser > 0, 'the feed scenario reads a filled timeline');
  });

  test('the leaderboard is the aggregate of CLOSED bets', async () => {
    const board = await handle.db.selectFrom('leaderboard').selectAll().orderBy('user_id').execute();
    const expected = await handle.db
      .selectFrom('bets')
      .where('status', '=', 'CLOSED')
      .groupBy('user_id')
      .select((eb) => ['user_id', eb.fn.sum<number>('percentage_gain').as('total_score'), eb.fn.countAll<number>().as('total_trades')])
      .orderBy('user_id')
      .execute();
    assert.equal(board.length, expected.length);
    board.forEach((row, i) => {
      assert.equal(row.user_id, Number(expected[i].user_id));
      assert.equal(row.total_trades, Number(expected[i].total_trades));
      assert.ok(Math.abs(row.total_score - Number(expected[i].total_score)) < 1e-9);
    });
  });

  test('every generated bet is unranked: its entry price was never a quote of the market (issue 33)', async () => {
    const reasons = await handle.db.selectFrom('bets').select('unranked_reason').distinct().execute();
    assert.deepEqual(
      reasons.map((r) => r.unranked_reason),
      ['entry_not_quoted'],
    );
    const ranked = await handle.db.selectFrom('bets').select('id').where('ranked_gain', 'is not', null).limit(1).execute();
    assert.equal(ranked.length, 0);
  });

  test('the daily statistics add up to the leaderboard, user by user', async () => {
    const days = await handle.db
      .selectFrom('user_day_stats')
      .groupBy('user_id')
      .select((eb) => ['user_id', eb.fn.sum<number>('trades').as('trades'), eb.fn.sum<number>('score_sum').as('score')])
      .orderBy('user_id')
      .execute();
    const board = await handle.db.selectFrom('leaderboard').selectAll().orderBy('user_id').execute();
    assert.equal(days.length, board.length);
    days.forEach((d, i) => {
      assert.equal(Number(d.user_id), board[i].user_id);
      assert.equal(Number(d.trades), board[i].total_trades);
      assert.ok(Math.abs(Number(d.score) - board[i].total_score) < 1e-6);
    });
  });

  test('the record of generated users verifies against their bets, read back from the database', async () => {
    for (const userId of [ROLES.demo.id, ROLES.history.id, 20]) {
      const entries = await handle.db.selectFrom('record_entries').selectAll().where('user_id', '=', userId).orderBy('seq').execute();
      const bets = await handle.db
        .selectFrom('bets')
        .select(['id', 'ticker', 'direction', 'status', 'entry_price', 'exit_price', 'percentage_gain', 'target_date'])
        .where('user_id', '=', userId)
        .execute();
      assert.ok(entries.length > bets.length);
      const chain = entries.map((e) => ({ seq: e.seq, prev_hash: e.prev_hash, hash: e.hash, event: JSON.parse(e.event) as RecordEvent }));
      assert.deepEqual(verifyChain(userId, chain, bets), []);
    }
  });

  test('indexes and constraints are those the migrations create, and new rows get the next ids', async () => {
    const fresh = await openTestDatabase(dialect);
    try {
      await migrateToLatest(fresh);
      assert.deepEqual(await indexNames(handle), await indexNames(fresh));
    } finally {
      await fresh.close();
    }
    const user = await handle.db
      .insertInto('users')
      .values({ username: 'after_load', username_lower: 'after_load', email: 'after@load.test', password_hash: 'x', created_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal(user.id, PRESETS.tiny.users + 1);
    const bet = await handle.db
      .insertInto('bets')
      .values({ user_id: user.id, ticker: 'AAPL', direction: 'LONG', status: 'OPEN', entry_price: 1, opened_at: 1, last_event_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal(bet.id, PRESETS.tiny.finishedBets + PRESETS.tiny.openBets + 1);
  });

  // PostgreSQL only: SQLite's load ends with a WAL checkpoint (bench/lib/bulk.ts), and the run's copy is fsynced.
  if (dialect === 'postgres')
    test('on PostgreSQL the loaded tables are vacuumed and analyzed before anything is measured', async () => {
      const { rows } = await sql<{ relname: string; vacuumed: boolean; analyzed: boolean }>`
      select relname, last_vacuum is not null as vacuumed, last_analyze is not null as analyzed
        from pg_stat_user_tables where schemaname = current_schema() and relname in ('users', 'bets', 'follows', 'record_entries')
       order by relname`.execute(handle.db);
      assert.deepEqual(
        rows.map((r) => [r.relname, r.vacuumed, r.analyzed]),
        ['bets', 'follows', 'record_entries', 'users'].map((t) => [t, true, true]),
      );
      assert.ok(
        summaryLines.every((l) => !l.includes('checkpoint skipped')),
        'the test database allows CHECKPOINT',
      );
    });
});
