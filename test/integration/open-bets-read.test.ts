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
      assert.match(plan, /Index (Only )?Scan( Backward)? (using|on) (bets_user_open_idx|bets_user_status_idx)/, plan);
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
});
