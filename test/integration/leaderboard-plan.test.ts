// The leaderboard request reads the aggregate through its index: the query
// plan shows leaderboard_rank_idx, no sort of the whole table, no bets.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { leaderboardQuery } from '../../src/repositories/bets.js';
import { LEADERBOARD_SIZE } from '../../src/services/bets.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

const USERS = 3000;

forEachDialect('leaderboard query plan', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
    const db = t.ctx.db;
    for (let start = 0; start < USERS; start += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => start + i);
      const users = await db
        .insertInto('users')
        .values(
          batch.map((n) => ({ username: `plan_${n}`, username_lower: `plan_${n}`, email: `plan_${n}@x.test`, password_hash: 'x', created_at: 0 })),
        )
        .returning('id')
        .execute();
      await db
        .insertInto('leaderboard')
        .values(users.map((u, i) => ({ user_id: u.id, total_score: ((batch[i] * 7919) % 1000) - 500, total_trades: 1 + (batch[i] % 9) })))
        .execute();
    }
    await sql`analyze`.execute(db);
  });
  after(() => t.close());

  test('EXPLAIN: the top 100 come from leaderboard_rank_idx, never from bets', async () => {
    const q = leaderboardQuery(t.ctx.db, LEADERBOARD_SIZE).compile();
    const prefix = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const rows = (await t.ctx.db.executeQuery(CompiledQuery.raw(prefix + q.sql, [...q.parameters]))).rows as Array<Record<string, unknown>>;
    const plan = rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
    assert.match(plan, /leaderboard_rank_idx/, plan);
    assert.doesNotMatch(plan, /\bbets\b/, plan);
    if (dialect === 'sqlite') assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, plan);
    else assert.doesNotMatch(plan, /Seq Scan on leaderboard|Sort/, plan);
  });

  test('and it answers the top 100 in order', async () => {
    const rows = await leaderboardQuery(t.ctx.db, LEADERBOARD_SIZE).execute();
    assert.equal(rows.length, 100);
    assert.equal(rows[0].total_score, 499);
  });
});
