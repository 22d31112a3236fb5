// A window read touches only the window's day rows: the query plan of the
// grouped read shows user_day_stats_day_idx with a range on day, never bets;
// the ranked board's read, user_day_stats_ranked_day_idx likewise.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { windowStartDay } from '../../src/domain/rankings.js';
import { windowTotalsQuery } from '../../src/repositories/rankings.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { explain } from '../helpers/explain.js';

const USERS = 1000;
const DAYS = 60;
const DAY_MS = 86_400_000;

forEachDialect('rankings window query plan', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
    const db = t.ctx.db;
    const now = t.clock.now();
    for (let start = 0; start < USERS; start += 250) {
      const batch = Array.from({ length: 250 }, (_, i) => start + i);
      const users = await db
        .insertInto('users')
        .values(
          batch.map((n) => ({ username: `wplan_${n}`, username_lower: `wplan_${n}`, email: `wplan_${n}@x.test`, password_hash: 'x', created_at: 0 })),
        )
        .returning('id')
        .execute();
      for (let d = 0; d < DAYS; d += 3) {
        const day = new Date(now - d * DAY_MS).toISOString().slice(0, 10);
        await db
          .insertInto('user_day_stats')
          .values(
            users.map((u, i) => ({
              user_id: u.id,
              day,
              trades: 1 + (i % 3),
              score_sum: (i % 17) - 8,
              wins: 1,
              alpha_count: 1,
              alpha_sum: 1,
              alpha_sq_sum: 1,
              // Every other user has a ranked bet on each of these days.
              ranked_trades: i % 2,
              ranked_score_sum: i % 2,
              ranked_wins: i % 2,
              ranked_alpha_count: i % 2,
              ranked_alpha_sum: i % 2,
              ranked_alpha_sq_sum: i % 2,
            })),
          )
          .execute();
      }
    }
    await sql`analyze`.execute(db);
  });
  after(() => t.close());

  test('EXPLAIN: a 7-day window is a range read of a day-first aggregate index, never bets', async () => {
    const from = windowStartDay('7d', t.clock.now());
    const plan = await explain(t.database, windowTotalsQuery(t.ctx.db, from), { noSeqScan: true });
    assert.doesNotMatch(plan, /\bbets\b/, plan);
    if (dialect === 'sqlite') {
      // Every summed column is in the index: the table itself is never read.
      assert.match(plan, /SEARCH user_day_stats USING COVERING INDEX user_day_stats_day_idx \(day>\?\)/, plan);
    } else {
      // PostgreSQL picks either day-first index (the covering one once vacuum marks pages all-visible).
      assert.match(plan, /Index (Only )?Scan (on|using) user_day_stats_(day_idx|pk)[^\n]*\n\s*Index Cond: \(\(day\)::text >= /, plan);
      assert.doesNotMatch(plan, /Seq Scan on user_day_stats/, plan);
    }
  });

  test('EXPLAIN: the ranked window is a range read of the partial ranked index, never bets', async () => {
    const from = windowStartDay('7d', t.clock.now());
    const plan = await explain(t.database, windowTotalsQuery(t.ctx.db, from, 'ranked'), { noSeqScan: true });
    assert.doesNotMatch(plan, /\bbets\b/, plan);
    if (dialect === 'sqlite') {
      assert.match(plan, /SEARCH user_day_stats USING COVERING INDEX user_day_stats_ranked_day_idx \(day>\?\)/, plan);
    } else {
      assert.match(plan, /Index (Only )?Scan (on|using) user_day_stats_\w+/, plan);
      assert.doesNotMatch(plan, /Seq Scan on user_day_stats/, plan);
    }
    const rows = await windowTotalsQuery(t.ctx.db, from, 'ranked').execute();
    assert.equal(rows.length, USERS / 2, 'only users with ranked bets');
    assert.ok(rows.every((r) => Number(r.trades) === 3 && Number(r.alpha_n) === 3));
  });

  test('and the read answers from the window only', async () => {
    const from = windowStartDay('7d', t.clock.now());
    const rows = await windowTotalsQuery(t.ctx.db, from).execute();
    assert.equal(rows.length, USERS);
    // Days 0, 3 and 6 back are inside a 7-day window.
    assert.ok(
      rows.every((r) => Number(r.alpha_n) === 3),
      JSON.stringify(rows[0]),
    );
  });
});
