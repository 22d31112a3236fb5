// Statements sent together (src/db/together.ts): one statement on PostgreSQL,
// one after another on SQLite, with the same outcome on both: every statement
// applied once, the first one's rows answered, and a failure of any undoing
// the transaction.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/database.js';
import { runTogether } from '../../src/db/together.js';
import { forEachDialect, openTestDatabase } from '../helpers/db.js';

forEachDialect('statements sent together', (dialect) => {
  let database: DatabaseHandle;
  const sent: string[] = [];
  before(async () => {
    database = await openTestDatabase(dialect, { migrated: true, onQuery: (s) => sent.push(s) });
    await database.migrate();
  });
  after(() => database.close());

  const insertUser = (name: string) => ({
    username: name,
    username_lower: name.toLowerCase(),
    email: `${name}@example.test`,
    password_hash: 'x',
    created_at: 1,
  });

  test('every statement is applied once and the first one answers its rows', async () => {
    const { db } = database;
    const id = Number((await db.insertInto('users').values(insertUser('Tog1')).returning('id').executeTakeFirstOrThrow()).id);
    sent.length = 0;
    const rows = await database.transaction((trx) =>
      runTogether(trx, trx.updateTable('users').set({ extra_bets: 2 }).where('id', '=', id).returning(['id', 'extra_bets']).compile(), [
        trx.insertInto('leaderboard').values({ user_id: id, total_score: 1.5, total_trades: 1 }).compile(),
        trx.updateTable('users').set({ extra_slots: 3 }).where('id', '=', id).where('username', '=', "it's $1").compile(),
        trx.insertInto('ranked_leaderboard').values({ user_id: id, total_score: 2.5, total_trades: 1 }).compile(),
      ]),
    );
    assert.deepEqual(rows, [{ id, extra_bets: 2 }]);
    const work = sent.filter((s) => !/^(begin|commit|savepoint|release)\b/i.test(s));
    assert.equal(work.length, dialect === 'postgres' ? 1 : 4, work.join('\n'));
    const user = await db.selectFrom('users').select(['extra_bets', 'extra_slots']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(user, { extra_bets: 2, extra_slots: 0 }, 'the literal with a $ in it is a value, not a placeholder');
    const board = await db.selectFrom('leaderboard').select(['total_score', 'total_trades']).where('user_id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(board, { total_score: 1.5, total_trades: 1 });
    const ranked = await db.selectFrom('ranked_leaderboard').select(['total_score']).where('user_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(ranked.total_score, 2.5);
  });

  test('a failing statement undoes the others with the transaction', async () => {
    const { db } = database;
    const id = Number((await db.insertInto('users').values(insertUser('Tog2')).returning('id').executeTakeFirstOrThrow()).id);
    await assert.rejects(
      database.transaction((trx) =>
        runTogether(trx, trx.updateTable('users').set({ extra_bets: 5 }).where('id', '=', id).compile(), [
          trx.insertInto('leaderboard').values({ user_id: id, total_score: 1, total_trades: 1 }).compile(),
          // No such user: the foreign key fails the statement.
          trx.insertInto('ranked_leaderboard').values({ user_id: 999_999_999, total_score: 1, total_trades: 1 }).compile(),
        ]),
      ),
    );
    const user = await db.selectFrom('users').select('extra_bets').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(user.extra_bets, 0);
    assert.equal(await db.selectFrom('leaderboard').select('user_id').where('user_id', '=', id).executeTakeFirst(), undefined);
  });
});
