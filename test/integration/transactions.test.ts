// The database object's transactions: onCommit work runs once the transaction
// commits, never for one rolled back, and on SQLite's group commit only for
// the members that committed; a nested transaction fails at once (on SQLite
// it would wait for ever on the batch its caller holds open); Kysely plugins
// see the queries run inside a transaction.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

forEachDialect('transactions', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('onCommit runs after the commit, not inside the transaction', async () => {
    const seen: string[] = [];
    await t.ctx.database.transaction(async () => {
      t.ctx.database.onCommit(() => seen.push('committed'));
      seen.push('inside');
    });
    assert.deepEqual(seen, ['inside', 'committed']);
  });

  test('onCommit never runs for a transaction rolled back; concurrent siblings keep theirs', async () => {
    const seen: number[] = [];
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) =>
        t.ctx.database.transaction(async (trx) => {
          t.ctx.database.onCommit(() => seen.push(n));
          await trx.selectFrom('users').select('id').limit(1).execute();
          if (n % 2 === 0) throw new Error(`fail ${n}`);
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
    );
    assert.deepEqual(seen.sort(), [1, 3]);
  });

  test('onCommit outside a transaction is an error', () => {
    assert.throws(() => t.ctx.database.onCommit(() => undefined), /outside a transaction/);
  });

  test('a nested transaction fails fast with a clear error, and the outer one rolls back', async () => {
    const key = `nested-${dialect}-${Date.now()}`;
    await assert.rejects(
      t.ctx.database.transaction(async (trx) => {
        await trx.insertInto('settings').values({ key, value: 'outer' }).execute();
        await t.ctx.database.transaction(async () => undefined);
      }),
      /transaction\(\) called inside a transaction/,
    );
    const row = await t.ctx.db.selectFrom('settings').select('key').where('key', '=', key).executeTakeFirst();
    assert.equal(row, undefined);
    // The database still takes transactions afterwards.
    await t.ctx.database.transaction(async (trx) => trx.insertInto('settings').values({ key, value: 'after' }).execute());
  });

  test('the store is enabled again after every transaction has finished: onCommit and the nesting check still work', async () => {
    const seen: string[] = [];
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        [1, 2].map((n) =>
          t.ctx.database.transaction(async (trx) => {
            await trx.selectFrom('users').select('id').limit(n).execute();
            assert.equal(t.ctx.database.inTransaction, true);
            t.ctx.database.onCommit(() => seen.push(`${round}.${n} ${t.ctx.database.inTransaction}`));
          }),
        ),
      );
      assert.equal(t.ctx.database.inTransaction, false);
      await assert.rejects(
        t.ctx.database.transaction(() => t.ctx.database.transaction(async () => undefined)),
        /transaction\(\) called inside a transaction/,
      );
    }
    assert.deepEqual(seen.sort(), ['0.1 false', '0.2 false', '1.1 false', '1.2 false']);
  });

  test('a plugin on the handle a transaction is given sees the queries run inside it', async () => {
    const seen: string[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        seen.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await t.ctx.database.transaction(async (trx) => {
      await trx.withPlugin(capture).selectFrom('users').select('id').limit(1).execute();
    });
    assert.deepEqual(seen, ['SelectQueryNode']);
  });
});
