// 0029_theses adds bet_theses and thesis_reports beside the bets (no bet row
// changes), keeps one report per user and thesis by its key, and goes down
// and up again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

forEachDialect('0029_theses', (dialect) => {
  test('tables beside the bets, one report per user and thesis, cascades from the bet, down and up', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      const { db, insertUser } = migrationFixture(handle);
      const owner = await insertUser('ann');
      const reporter = await insertUser('bob');
      const bet = await db
        .insertInto('bets')
        .values({ user_id: owner, ticker: 'AAPL', direction: 'LONG', status: 'OPEN', entry_price: 1, opened_at: 0, last_event_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const betId = Number(bet.id);

      await migrateTestDatabaseTo(handle, '0029_theses');
      await db
        .insertInto('bet_theses')
        .values({ bet_id: betId, user_id: owner, text: 'why', salt: 'a'.repeat(32), hash: 'b'.repeat(64), created_at: 0 })
        .execute();
      const row = await db.selectFrom('bet_theses').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([Number(row.counted_reports), row.hidden_at], [0, null]);
      await db.insertInto('thesis_reports').values({ bet_id: betId, reporter_id: reporter, counted: 1, reported_at: 0 }).execute();
      await assert.rejects(
        db.insertInto('thesis_reports').values({ bet_id: betId, reporter_id: reporter, counted: 0, reported_at: 1 }).execute(),
        'a second report by the same user is refused by the key',
      );

      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      await assert.rejects(db.selectFrom('bet_theses').selectAll().execute(), 'down drops the tables');
      assert.equal((await db.selectFrom('bets').select('id').execute()).length, 1, 'bets untouched');
      await migrateToLatest(handle);
      assert.deepEqual(await db.selectFrom('thesis_reports').selectAll().execute(), []);
    } finally {
      await handle.close();
    }
  });
});
