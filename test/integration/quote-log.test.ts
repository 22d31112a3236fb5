// The quotes log's writes: publications of one turn of the event loop share a
// transaction and an insert, each caller is answered once that commit is
// done, a quote of an instant already kept keeps the first, and a failed write
// fails its own callers only. Both dialects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/database.js';
import { DatabaseQuoteLog } from '../../src/services/quote-log.js';
import { forEachDialect, openTestDatabase, type TestDatabase } from '../helpers/db.js';

const INSERTS = /^insert into "quotes"/i;
const BEGINS = /^begin\b/i;

forEachDialect('quote log', (dialect) => {
  let db: TestDatabase;
  let statements: string[] = [];
  before(async () => {
    db = await openTestDatabase(dialect, { migrated: true, onQuery: (s) => statements.push(s) });
    await db.migrate();
  });
  after(() => db.close());

  const kept = async (ticker: string) =>
    (await db.db.selectFrom('quotes').select(['published_at', 'price']).where('ticker', '=', ticker).orderBy('published_at').execute()).map((r) => ({
      at: Number(r.published_at),
      price: Number(r.price),
    }));

  test('the publications of one turn: one transaction, one insert, every quote kept exactly', async () => {
    const log = new DatabaseQuoteLog(db);
    // Prices whose last digit a lossy conversion would change.
    const quotes = Array.from({ length: 130 }, (_, i) => ({ ticker: `T${i}`, at: 1_700_000_000_000 + i, price: 0.1 + 0.2 + i / 3 }));
    statements = [];
    let answered = 0;
    await Promise.all(quotes.map((q) => log.append(q.ticker, { price: q.price, at: q.at }).then(() => answered++)));
    assert.equal(answered, quotes.length);
    assert.deepEqual(log.stats, { writes: 1, quotes: quotes.length });
    assert.equal(statements.filter((s) => INSERTS.test(s)).length, 1, 'one insert for the turn');
    assert.equal(statements.filter((s) => BEGINS.test(s)).length, 1, 'one transaction for the turn');
    for (const q of quotes) assert.deepEqual(await kept(q.ticker), [{ at: q.at, price: q.price }]);
  });

  test('each caller is answered only once the commit holding its quote is done', async () => {
    const commits: string[] = [];
    const watched: Pick<DatabaseHandle, 'db' | 'transaction'> = {
      db: db.db,
      transaction: async (fn) => {
        const result = await db.transaction(fn);
        commits.push('committed');
        return result;
      },
    };
    const log = new DatabaseQuoteLog(watched);
    const order: string[] = commits;
    await Promise.all([
      log.append('ORD1', { price: 1, at: 10 }).then(() => order.push('answered')),
      log.append('ORD2', { price: 2, at: 10 }).then(() => order.push('answered')),
    ]);
    assert.deepEqual(order, ['committed', 'answered', 'answered']);
  });

  test('a quote of an instant already kept keeps the first, in one turn and across turns', async () => {
    const log = new DatabaseQuoteLog(db);
    await Promise.all([
      log.append('DUP', { price: 1.5, at: 100 }),
      log.append('DUP', { price: 2.5, at: 100 }),
      log.append('DUP', { price: 3.5, at: 101 }),
    ]);
    await log.append('DUP', { price: 9.5, at: 100 });
    assert.deepEqual(await kept('DUP'), [
      { at: 100, price: 1.5 },
      { at: 101, price: 3.5 },
    ]);
    assert.deepEqual(log.stats, { writes: 2, quotes: 4 });
  });

  test('publications of later turns are later writes; a failed write fails its own callers only', async () => {
    let fail = true;
    const flaky: Pick<DatabaseHandle, 'db' | 'transaction'> = {
      db: db.db,
      transaction: (fn) => {
        if (fail) {
          fail = false;
          return Promise.reject(new Error('the database is away'));
        }
        return db.transaction(fn);
      },
    };
    const log = new DatabaseQuoteLog(flaky);
    const first = await Promise.allSettled([log.append('FL1', { price: 1, at: 5 }), log.append('FL2', { price: 2, at: 5 })]);
    assert.deepEqual(
      first.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    await log.append('FL1', { price: 3, at: 6 });
    await log.append('FL2', { price: 4, at: 6 });
    assert.deepEqual(log.stats, { writes: 2, quotes: 2 }, 'one write a turn, the failed one not counted');
    assert.deepEqual(await kept('FL1'), [{ at: 6, price: 3 }]);
    assert.deepEqual(await kept('FL2'), [{ at: 6, price: 4 }]);
  });
});
