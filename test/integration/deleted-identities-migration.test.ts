// 0014_deleted_identities gives accounts deleted before it the anonymous
// values deletion now writes, and touches no live account, whatever its name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { deletedIdentity } from '../../src/domain/accounts.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase } from '../helpers/db.js';

forEachDialect('0014_deleted_identities', (dialect) => {
  test('deleted rows take deleted:<id>; live ones, deleted_<n> names included, stay as they are', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0013_chat_updates');
      const db = handle.db;
      const insert = async (username: string, email: string, deleted: boolean) =>
        Number(
          (
            await db
              .insertInto('users')
              .values({ username, username_lower: username.toLowerCase(), email, password_hash: 'x', created_at: 0, deleted_at: deleted ? 1 : null })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      // Deleted under the old scheme: renamed after their own id.
      const gone = await insert('placeholder_a', 'a@x.test', true);
      await db
        .updateTable('users')
        .set({ username: `deleted_${gone}`, username_lower: `deleted_${gone}`, email: `deleted_${gone}@deleted.invalid` })
        .where('id', '=', gone)
        .execute();
      // Live accounts that took names of that form, before they were reserved.
      const liveA = await insert(`deleted_${gone + 5}`, 'live-a@x.test', false);
      const liveB = await insert('Deleted_42', 'deleted_42@deleted.invalid', false);
      const before = await db.selectFrom('users').selectAll().where('id', 'in', [liveA, liveB]).orderBy('id').execute();

      await migrateToLatest(handle);

      const row = await db.selectFrom('users').selectAll().where('id', '=', gone).executeTakeFirstOrThrow();
      const anonymous = deletedIdentity(gone);
      assert.deepEqual([row.username, row.username_lower, row.email], [anonymous.username, anonymous.username, anonymous.email]);
      assert.deepEqual(await db.selectFrom('users').selectAll().where('id', 'in', [liveA, liveB]).orderBy('id').execute(), before);
    } finally {
      await handle.close();
    }
  });
});
