// afterCommit: work that must wait for the commit (dropping cached answers)
// runs once the transaction commits, never for one rolled back, and on
// SQLite's group commit only for the members that committed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { afterCommit, withTransaction } from '../../src/db/transaction.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

forEachDialect('afterCommit', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('runs after the commit, not inside the transaction', async () => {
    const seen: string[] = [];
    await withTransaction(t.ctx.db, t.ctx.dialect, async (trx) => {
      afterCommit(trx, () => seen.push('committed'));
      seen.push('inside');
    });
    assert.deepEqual(seen, ['inside', 'committed']);
  });

  test('never for a transaction rolled back; concurrent siblings keep theirs', async () => {
    const seen: number[] = [];
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) =>
        withTransaction(t.ctx.db, t.ctx.dialect, async (trx) => {
          afterCommit(trx, () => seen.push(n));
          await trx.selectFrom('users').select('id').limit(1).execute();
          if (n % 2 === 0) throw new Error(`fail ${n}`);
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    assert.deepEqual(seen.sort(), [1, 3]);
  });

  test('outside a transaction it runs at once', () => {
    let ran = false;
    afterCommit(t.ctx.db, () => (ran = true));
    assert.equal(ran, true);
  });
});
