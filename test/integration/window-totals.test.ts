// The windows' sums (migration 0035): every user_window_stats row equals the
// user's day rows summed from the window's start, whatever way the day rows
// changed (inserted, added to by a close, deleted) and however the clock's day
// moves the starts; and a window read is a range of the board's window index,
// never a sum over day rows or bets.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { PERIODS, windowStartDay } from '../../src/domain/rankings.js';
import { usersAheadQuery, windowLeaderboardQuery, windowTotalsQuery } from '../../src/repositories/rankings.js';
import { WINDOW_SUMS, windowStarts } from '../../src/repositories/window-totals.js';
import { currentWindows } from '../../src/services/window-totals.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { explain } from '../helpers/explain.js';

const USERS = 600;
const DAYS = 60;
const DAY_MS = 86_400_000;

const SUMS = WINDOW_SUMS;

forEachDialect('window totals', (dialect) => {
  let t: TestApp;
  let ids: number[] = [];
  before(async () => {
    t = await createTestApp(dialect);
    const db = t.ctx.db;
    const now = t.clock.now();
    for (let start = 0; start < USERS; start += 200) {
      const batch = Array.from({ length: 200 }, (_, i) => start + i);
      const users = await db
        .insertInto('users')
        .values(
          batch.map((n) => ({ username: `wtot_${n}`, username_lower: `wtot_${n}`, email: `wtot_${n}@x.test`, password_hash: 'x', created_at: 0 })),
        )
        .returning('id')
        .execute();
      ids.push(...users.map((u) => Number(u.id)));
      for (let d = 0; d < DAYS; d += 3) {
        const day = new Date(now - d * DAY_MS).toISOString().slice(0, 10);
        await db
          .insertInto('user_day_stats')
          .values(
            users.map((u, i) => ({
              user_id: u.id,
              day,
              trades: 1 + (i % 3),
              score_sum: ((i * 7 + d) % 17) - 8.25,
              wins: 1,
              alpha_count: 1,
              alpha_sum: 0.5,
              alpha_sq_sum: 0.25,
              // Every other user has a ranked bet on each of these days.
              ranked_trades: i % 2,
              ranked_score_sum: (i % 2) * 1.5,
              ranked_wins: i % 2,
              ranked_alpha_count: i % 2,
              ranked_alpha_sum: i % 2,
              ranked_alpha_sq_sum: i % 2,
            })),
          )
          .execute();
      }
    }
    await currentWindows(t.ctx);
    await sql`analyze`.execute(db);
  });
  after(() => t.close());

  /** Every window's rows as the day rows give them at the clock's day, against the table; keyed period|user. */
  async function assertExact(): Promise<void> {
    const db = t.ctx.db;
    const starts = await windowStarts(db);
    for (const period of PERIODS) {
      const start = windowStartDay(period, t.clock.now()) ?? '';
      assert.equal(starts.get(period), start, `${period} starts at the clock's day`);
      const expected = await db
        .selectFrom('user_day_stats')
        .select((eb) => ['user_id', ...SUMS.map((c) => eb.fn.sum<number>(c).as(c))])
        .where('day', '>=', start)
        .groupBy('user_id')
        .execute();
      const rows = await db.selectFrom('user_window_stats').selectAll().where('period', '=', period).execute();
      const kept = new Map(rows.map((r) => [Number(r.user_id), r]));
      for (const e of expected) {
        const row = kept.get(Number(e.user_id));
        assert.ok(row, `${period}: user ${e.user_id} has a row`);
        for (const c of SUMS) assert.ok(Math.abs(Number(row[c]) - Number(e[c])) < 1e-9, `${period} user ${e.user_id} ${c}: ${row[c]} vs ${e[c]}`);
        kept.delete(Number(e.user_id));
      }
      // A user whose day rows all left the window keeps no row, or a row of zeros.
      for (const [id, row] of kept) assert.equal(Number(row.trades), 0, `${period}: user ${id} has no day row in the window`);
    }
  }

  test('the windows equal the day rows from their starts', async () => {
    await assertExact();
    const rows = await windowTotalsQuery(t.ctx.db, '7d').execute();
    // Days 0, 3 and 6 back are inside a 7-day window.
    assert.equal(rows.length, USERS);
    assert.ok(rows.every((r) => Number(r.alpha_n) === 3));
    const ranked = await windowTotalsQuery(t.ctx.db, '7d', 'ranked').execute();
    assert.equal(ranked.length, USERS / 2, 'only users with ranked bets');
  });

  test('a close adding to a day row, a new day row and a deleted one reach every window counting the day', async () => {
    const db = t.ctx.db;
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    const user = ids[5]!;
    // The upsert a close runs (addToDayStats): an update of today's row.
    await db
      .updateTable('user_day_stats')
      .set((eb) => ({ trades: eb('trades', '+', 1), score_sum: eb('score_sum', '+', 3.3), ranked_trades: eb('ranked_trades', '+', 1) }))
      .where('user_id', '=', user)
      .where('day', '=', today)
      .execute();
    const yesterday = new Date(t.clock.now() - DAY_MS).toISOString().slice(0, 10);
    await db
      .insertInto('user_day_stats')
      .values({ user_id: ids[6]!, day: yesterday, trades: 2, score_sum: 4, wins: 2, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 })
      .execute();
    const oldDay = new Date(t.clock.now() - 45 * DAY_MS).toISOString().slice(0, 10);
    await db.deleteFrom('user_day_stats').where('user_id', '=', ids[7]!).where('day', '=', oldDay).execute();
    await assertExact();
  });

  test('a new day moves each start, recounting only the users it crosses; a clock set back moves them back', async () => {
    t.clock.advance(4 * DAY_MS);
    await currentWindows(t.ctx);
    await assertExact();
    t.clock.advance(40 * DAY_MS);
    await currentWindows(t.ctx);
    await assertExact();
    t.clock.advance(-44 * DAY_MS);
    await currentWindows(t.ctx);
    await assertExact();
  });

  test('EXPLAIN: a window board is a range of its window index, never day rows or bets', async () => {
    for (const board of ['raw', 'ranked'] as const) {
      const plan = await explain(t.database, windowLeaderboardQuery(t.ctx.db, board, '365d', 1, 100, 0), { noSeqScan: true });
      assert.doesNotMatch(plan, /\bbets\b|user_day_stats/, plan);
      const index = board === 'raw' ? 'user_window_stats_raw_idx' : 'user_window_stats_ranked_idx';
      if (dialect === 'sqlite') {
        assert.match(plan, new RegExp(`SEARCH w USING INDEX ${index} \\(period=\\?\\)`), plan);
        assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
      } else {
        assert.match(plan, new RegExp(`Index Scan using ${index} on user_window_stats w`), plan);
        assert.doesNotMatch(plan, /Sort|Seq Scan on user_window_stats/, plan);
      }
    }
  });

  test('EXPLAIN: a rank counts the range of the window index ahead of the caller, less the deleted accounts', async () => {
    const me = { userId: ids[10]!, score: 3, trades: 2 };
    for (const board of ['raw', 'ranked'] as const) {
      const plan = await explain(t.database, usersAheadQuery(t.ctx.db, board, '90d', 1, me), { noSeqScan: true });
      assert.doesNotMatch(plan, /\bbets\b|user_day_stats/, plan);
      if (dialect === 'sqlite') {
        assert.match(plan, /SEARCH w USING (COVERING )?INDEX user_window_stats_(raw|ranked)_idx \(period=\? AND (ranked_)?score_sum>\?\)/, plan);
        assert.match(plan, /(SCAN|SEARCH) users USING (COVERING )?INDEX users_deleted_idx/, plan);
      } else {
        assert.match(plan, /Index (Only )?Scan (using|on) user_window_stats_(raw|ranked)_idx/, plan);
        assert.match(plan, /Index Cond: \(\(\(?period\)?(::text)? = '90d'(::text)?\) AND \((ranked_)?score_sum >= /, plan);
        assert.match(plan, /Index (Only )?Scan using users_deleted_idx on users/, plan);
      }
    }
  });
});
