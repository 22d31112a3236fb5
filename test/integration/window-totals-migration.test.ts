// 0035_window_totals fills each window's rows from the day rows already there,
// from the window's start on the day it runs; its triggers then keep them as
// day rows change; down removes what it added, and up runs again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import * as m0035 from '../../src/db/migrations/0035_window_totals.js';
import { PERIODS, windowStartDay } from '../../src/domain/rankings.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

const DAY_MS = 86_400_000;

forEachDialect('0035_window_totals backfill', (dialect) => {
  test('each window sums the day rows from its start; the triggers keep it; down and up again', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0034_timeline');
      const { db, insertUser } = migrationFixture(handle);
      const a = await insertUser('window_a');
      const b = await insertUser('window_b');
      const dayAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
      const row = (user: number, daysAgo: number, trades: number, score: number, ranked = 0) => ({
        user_id: user,
        day: dayAgo(daysAgo),
        trades,
        score_sum: score,
        wins: 0,
        alpha_count: 0,
        alpha_sum: 0,
        alpha_sq_sum: 0,
        ranked_trades: ranked,
        ranked_score_sum: ranked * 2,
        ranked_wins: 0,
        ranked_alpha_count: 0,
        ranked_alpha_sum: 0,
        ranked_alpha_sq_sum: 0,
      });
      await db
        .insertInto('user_day_stats')
        .values([row(a, 0, 1, 1.5, 1), row(a, 10, 2, -3), row(a, 100, 4, 8), row(b, 400, 1, 2)])
        .execute();
      await migrateToLatest(handle);

      const windows = async () => {
        const rows = await handle.db.selectFrom('user_window_stats').selectAll().execute();
        return new Map(
          rows.map((r) => [`${r.period}|${r.user_id}`, { trades: Number(r.trades), score: Number(r.score_sum), ranked: Number(r.ranked_trades) }]),
        );
      };
      const starts = await handle.db.selectFrom('window_starts').selectAll().execute();
      assert.deepEqual(new Map(starts.map((s) => [s.period, s.start_day])), new Map(PERIODS.map((p) => [p, windowStartDay(p, Date.now()) ?? ''])));
      let w = await windows();
      assert.deepEqual(w.get(`7d|${a}`), { trades: 1, score: 1.5, ranked: 1 });
      assert.deepEqual(w.get(`30d|${a}`), { trades: 3, score: -1.5, ranked: 1 });
      assert.deepEqual(w.get(`365d|${a}`), { trades: 7, score: 6.5, ranked: 1 });
      assert.deepEqual(w.get(`all|${b}`), { trades: 1, score: 2, ranked: 0 });
      assert.equal(w.get(`365d|${b}`), undefined, 'a day row before the window has no row in it');

      // A close's upsert of today's row, and a new row 20 days back.
      await handle.db
        .updateTable('user_day_stats')
        .set((eb) => ({ trades: eb('trades', '+', 1), score_sum: eb('score_sum', '+', 2) }))
        .where('user_id', '=', a)
        .where('day', '=', dayAgo(0))
        .execute();
      await db
        .insertInto('user_day_stats')
        .values(row(b, 20, 3, 9))
        .execute();
      w = await windows();
      assert.deepEqual(w.get(`7d|${a}`), { trades: 2, score: 3.5, ranked: 1 });
      assert.deepEqual(w.get(`30d|${b}`), { trades: 3, score: 9, ranked: 0 });
      assert.deepEqual(w.get(`all|${b}`), { trades: 4, score: 11, ranked: 0 });
      assert.equal(w.get(`7d|${b}`), undefined);

      await m0035.down(handle.db as unknown as Parameters<typeof m0035.down>[0]);
      // Without the triggers a day row changes alone.
      await db
        .insertInto('user_day_stats')
        .values(row(b, 1, 1, 1))
        .execute();
      await m0035.up(handle.db as unknown as Parameters<typeof m0035.up>[0]);
      w = await windows();
      assert.deepEqual(w.get(`7d|${b}`), { trades: 1, score: 1, ranked: 0 });
      assert.deepEqual(w.get(`7d|${a}`), { trades: 2, score: 3.5, ranked: 1 });
    } finally {
      await handle.close();
    }
  });
});
