// The portfolio's read of a user's OPEN bets (listOpenBets), in the order
// shown: on SQLite one range of bets_user_open_idx (migration 0039), never the
// user's finished bets nor the table's rows; on PostgreSQL an index of the
// user's open bets; and the migration's way back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { listOpenBets } from '../../src/repositories/bets.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { insertTestBets } from '../helpers/bet-rows.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';
import { insertTestUser } from '../helpers/users.js';

const MIN = 60_000;

forEachDialect('open bets read', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('the open bets, latest opened first (ties by id), from the open bets index alone', async () => {
    const id = await insertTestUser(t.ctx, `op_${dialect[0]}${Date.now()}`);
    const other = await insertTestUser(t.ctx, `oo_${dialect[0]}${Date.now()}`);
    const now = t.clock.now();
    await insertTestBets(t.ctx, [
      ...Array.from({ length: 300 }, (_, i) => ({
        userId: id,
        openedAt: now - (i + 10) * MIN,
        end: { status: 'CLOSED' as const, at: now - i * MIN, exit: 101, gain: 1 },
      })),
      { userId: id, openedAt: now - 5 * MIN, ticker: 'MSFT', direction: 'SHORT' as const },
      { userId: id, openedAt: now - 2 * MIN, ticker: 'BTC-USD' },
      { userId: id, openedAt: now - 2 * MIN, ticker: 'ETH-USD' },
      // Open bets of another owner: OPEN alone is not selective, as in a real population.
      ...Array.from({ length: 2_000 }, (_, i) => ({ userId: other, openedAt: now - i * MIN })),
    ]);
    // And finished bets outnumber the open ones, as they do once a service has run for a while.
    for (let part = 0; part < 8; part++) {
      await insertTestBets(
        t.ctx,
        Array.from({ length: 1_000 }, (_, i) => ({
          userId: other,
          openedAt: now - (part * 1_000 + i + 3_000) * MIN,
          end: { status: 'CLOSED' as const, at: now - (part * 1_000 + i + 2_500) * MIN, exit: 101, gain: 1 },
        })),
      );
    }
    await t.ctx.db.updateTable('bets').set({ target_date: '2026-12-24' }).where('user_id', '=', id).where('ticker', '=', 'BTC-USD').execute();
    if (dialect === 'postgres') await sql`analyze bets`.execute(t.ctx.db);
    else await sql`analyze`.execute(t.ctx.db);

    const rows = await listOpenBets(t.ctx.db, id);
    const expected = await t.ctx.db
      .selectFrom('bets')
      .select(['id', 'ticker', 'direction', 'entry_price', 'target_date', 'opened_at'])
      .where('user_id', '=', id)
      .where('status', '=', 'OPEN')
      .execute();
    expected.sort((a, b) => Number(b.opened_at) - Number(a.opened_at) || Number(b.id) - Number(a.id));
    assert.deepEqual(rows, expected);
    assert.deepEqual(
      rows.map((r) => r.ticker),
      ['ETH-USD', 'BTC-USD', 'MSFT'],
    );

    const [query] = await capturedQueries(t.ctx.db, (db) => listOpenBets(db, id));
    const plan = await explain(t.database, query!, { noSeqScan: true });
    if (dialect === 'sqlite') {
      assert.match(plan, /^SEARCH bets USING COVERING INDEX bets_user_open_idx \(user_id=\?\)$/, plan);
    } else {
      // PostgreSQL weighs the heap's visibility too: either index reads only this user's open bets.
      assert.match(plan, /Index (Only )?Scan( Backward)? (using|on) bets_user_open_idx/, plan);
      assert.doesNotMatch(plan, /Seq Scan|bets_user_opened_idx/, plan);
    }
  });

  test('migration 0039 goes back and forth', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0039_open_bets_by_owner');
      await migrateTestDatabaseTo(handle, '0038_timeline_by_event');
      await migrateTestDatabaseTo(handle, '0039_open_bets_by_owner');
    } finally {
      await handle.close();
    }
  });

  test('migration 0041 drops the indexes no read needs and goes back', async () => {
    const handle = await openTestDatabase(dialect);
    const indexes = async () => {
      const { rows } =
        dialect === 'sqlite'
          ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'bets'`.execute(handle.db)
          : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'bets' and schemaname = current_schema()`.execute(
              handle.db,
            );
      return new Set(rows.map((r) => r.name));
    };
    try {
      await migrateTestDatabaseTo(handle, '0041_bets_index_diet');
      const after = await indexes();
      for (const gone of ['bets_user_status_idx', 'bets_status_settle_idx']) assert.ok(!after.has(gone), gone);
      for (const kept of ['bets_open_settle_idx', 'bets_source_idx', 'bets_user_open_idx']) assert.ok(after.has(kept), kept);
      await migrateTestDatabaseTo(handle, '0040_finished_bet_views');
      const before = await indexes();
      for (const back of ['bets_user_status_idx', 'bets_status_settle_idx', 'bets_source_idx']) assert.ok(before.has(back), back);
      assert.ok(!before.has('bets_open_settle_idx'));
      await migrateTestDatabaseTo(handle, '0041_bets_index_diet');
    } finally {
      await handle.close();
    }
  });
});
