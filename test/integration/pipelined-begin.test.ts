// A transaction's BEGIN rides with its first statement on PostgreSQL
// (src/db/pipelined-begin.ts): one round trip fewer, and nothing else
// changes: a first statement that fails fails the transaction with its own
// error, and the connection serves the next transaction cleanly.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/database.js';
import { forEachDialect, openTestDatabase } from '../helpers/db.js';

forEachDialect('BEGIN sent with the first statement', (dialect) => {
  let database: DatabaseHandle;
  before(async () => {
    // One connection: every transaction below reuses the one before it.
    database = await openTestDatabase(dialect, { migrated: true, pgPoolSize: 1 });
    await database.migrate();
  });
  after(() => database.close());

  const user = (name: string) => ({
    username: name,
    username_lower: name.toLowerCase(),
    email: `${name}@example.test`,
    password_hash: 'x',
    created_at: 1,
  });

  test('a transaction of one statement: the statement and COMMIT are its round trips on PostgreSQL', async () => {
    const before = database.pgRoundTrips;
    await database.transaction((trx) => trx.insertInto('users').values(user('Pipe1')).execute());
    if (dialect === 'postgres') assert.equal(database.pgRoundTrips! - before!, 2);
    else assert.equal(database.pgRoundTrips, null);
  });

  test('a first statement that fails: its own error, nothing kept, and the connection serves the next transaction', async () => {
    await assert.rejects(
      database.transaction((trx) => trx.insertInto('leaderboard').values({ user_id: 999_999_999, total_score: 1, total_trades: 1 }).execute()),
      (err: Error) => /foreign key/i.test(err.message),
    );
    await assert.rejects(
      database.transaction(async (trx) => {
        await trx.insertInto('users').values(user('Pipe2')).execute();
        throw new Error('refused');
      }),
      /refused/,
    );
    const names = await database.transaction((trx) =>
      trx.selectFrom('users').select('username').where('username', 'in', ['Pipe1', 'Pipe2']).execute(),
    );
    assert.deepEqual(
      names.map((r) => r.username),
      ['Pipe1'],
    );
  });
});
