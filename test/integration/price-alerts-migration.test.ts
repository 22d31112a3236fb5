// 0028_price_alerts: the table of price alerts, its kinds checked by the
// database, and a down that removes it (then up again) on both dialects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

forEachDialect('0028_price_alerts', (dialect) => {
  test('up creates price_alerts (kinds checked, rows cascade with their user); down drops it; up again', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      await migrateTestDatabaseTo(handle, '0028_price_alerts');
      const { db, insertUser } = migrationFixture(handle);
      const u = await insertUser('alerter');
      const row = (kind: string) => ({ user_id: u, ticker: 'AAPL', kind, value: 150.5, created_at: 1, starts_at: 1 });
      await db.insertInto('price_alerts').values(row('above')).execute();
      await db.insertInto('price_alerts').values(row('move')).execute();
      await assert.rejects(db.insertInto('price_alerts').values(row('sideways')).execute());
      const stored = await db.selectFrom('price_alerts').selectAll().orderBy('id').execute();
      assert.equal(stored.length, 2);
      assert.equal(Number(stored[0]!.value), 150.5);
      assert.equal(stored[0]!.fired_at, null);
      assert.equal(stored[0]!.checked_until, null);
      await db.deleteFrom('users').where('id', '=', u).execute();
      assert.equal((await db.selectFrom('price_alerts').selectAll().execute()).length, 0, 'gone with their user');

      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      await assert.rejects(db.selectFrom('price_alerts').selectAll().execute(), 'the table is dropped');
      await migrateTestDatabaseTo(handle, '0028_price_alerts');
      assert.deepEqual(await db.selectFrom('price_alerts').selectAll().execute(), []);
    } finally {
      await handle.close();
    }
  });
});
