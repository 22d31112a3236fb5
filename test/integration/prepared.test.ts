// Prepared queries (src/db/prepared.ts): built once per dialect, then run with
// each call's values in their places, inside transactions too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prepared } from '../../src/db/prepared.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';

forEachDialect('prepared queries', (dialect) => {
  let t: TestApp;
  let userId: number;
  before(async () => {
    t = await createTestApp(dialect);
    userId = (await registerAndLogin(t.app)).id;
  });
  after(() => t.close());

  let builds = 0;
  const insert = prepared((db, b: { user_id: number; ticker: string; opened_at: number; target_date?: string | null }) => {
    builds += 1;
    return db
      .insertInto('bets')
      .values({
        user_id: b.user_id,
        ticker: b.ticker,
        direction: 'LONG',
        status: 'OPEN',
        entry_price: 100,
        target_date: b.target_date,
        opened_at: b.opened_at,
        last_event_at: b.opened_at,
      })
      .returningAll();
  });
  // Two values of one type whose places must not be swapped.
  const between = prepared((db, p: { hi: number; lo: number; userId: number }) =>
    db
      .selectFrom('bets')
      .select('ticker')
      .where('user_id', '=', p.userId)
      .where('opened_at', '>', p.lo)
      .where('opened_at', '<', p.hi)
      .orderBy('opened_at'),
  );

  test('each value lands in its own place, constants stay as built, null binds NULL', async () => {
    const [a] = await insert(t.ctx.db, { user_id: userId, ticker: 'AAPL', opened_at: 1000, target_date: null });
    const [b] = await insert(t.ctx.db, { opened_at: 2000, ticker: 'MSFT', user_id: userId, target_date: '2030-01-02' });
    assert.equal(a!.ticker, 'AAPL');
    assert.equal(a!.direction, 'LONG');
    assert.equal(a!.target_date, null);
    assert.equal(b!.ticker, 'MSFT');
    assert.equal(b!.opened_at, 2000);
    assert.equal(b!.target_date, '2030-01-02');
    assert.deepEqual(await between(t.ctx.db, { userId, lo: 1500, hi: 2500 }), [{ ticker: 'MSFT' }]);
    assert.deepEqual(await between(t.ctx.db, { hi: 1500, lo: 500, userId }), [{ ticker: 'AAPL' }]);
    assert.equal(builds, 1);
  });

  test('a value left undefined is refused, never bound silently', async () => {
    // @ts-expect-error: the type refuses it too; this checks the run-time guard behind it.
    await assert.rejects(insert(t.ctx.db, { user_id: userId, ticker: 'IBM', opened_at: 1200 }), /no value for target_date/);
    assert.deepEqual(await between(t.ctx.db, { userId, lo: 1100, hi: 1300 }), []);
  });

  test('inside a transaction it runs on the transaction, and a rollback undoes it', async () => {
    await assert.rejects(
      t.ctx.database.transaction(async (trx) => {
        await insert(trx, { user_id: userId, ticker: 'NVDA', opened_at: 3000, target_date: null });
        assert.deepEqual(await between(trx, { userId, lo: 2500, hi: 3500 }), [{ ticker: 'NVDA' }]);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await between(t.ctx.db, { userId, lo: 2500, hi: 3500 }), []);
    assert.equal(builds, 1);
  });

  test('members of one group commit each keep their own writes: a failing one is undone, the others commit', async () => {
    const member = (ticker: string, fail: boolean) =>
      t.ctx.database.transaction(async (trx) => {
        await insert(trx, { user_id: userId, ticker, opened_at: 5000, target_date: null });
        // It reads its own write (and those of members before it, as if run one after another).
        assert.ok((await between(trx, { userId, lo: 4999, hi: 5001 })).some((r) => r.ticker === ticker));
        if (fail) throw new Error(`${ticker} fails`);
        return ticker;
      });
    const outcomes = await Promise.allSettled([member('TSLA', false), member('META', true), member('NFLX', false)]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
      ['TSLA', 'META fails', 'NFLX'],
    );
    const kept = await t.ctx.db
      .selectFrom('bets')
      .select('ticker')
      .where('user_id', '=', userId)
      .where('opened_at', '=', 5000)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      kept.map((r) => r.ticker),
      ['TSLA', 'NFLX'],
    );
  });

  test('on a database with plugins the query is built for each call, so every plugin sees it', async () => {
    const seen: string[] = [];
    const withPlugin = t.ctx.db.withPlugin({
      transformQuery: (args) => {
        seen.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const [row] = await insert(withPlugin, { user_id: userId, ticker: 'AMD', opened_at: 4000, target_date: null });
    assert.equal(row!.ticker, 'AMD');
    assert.equal(row!.target_date, null);
    assert.deepEqual(await between(withPlugin, { userId, lo: 3500, hi: 4500 }), [{ ticker: 'AMD' }]);
    assert.deepEqual(seen, ['InsertQueryNode', 'SelectQueryNode']);
    assert.equal(builds, 2);
  });
});
