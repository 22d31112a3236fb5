// Named PostgreSQL statements (src/db/named-statements.ts): a data statement
// with parameters is parsed once per connection and then run by name; other
// statements, and texts past the bound, run unnamed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type pg from 'pg';
import { NamedStatements, withNamedStatements } from '../../src/db/named-statements.js';
import { openTestDatabase, PG_SKIP, PG_URL, type TestDatabase } from '../helpers/db.js';

test('names go to data statements with parameters, up to the bound, and stay the same for a text', () => {
  const names = new NamedStatements(2);
  const first = names.nameOf('select * from bets where id = $1', 1);
  assert.match(first ?? '', /^k_[0-9a-f]{20}$/);
  assert.equal(names.nameOf('select * from bets where id = $1', 1), first);
  assert.equal(names.nameOf('select 1', 0), null, 'no parameters: nothing to gain');
  assert.equal(names.nameOf('create table x (id integer default $1)', 1), null, 'not a data statement');
  assert.notEqual(names.nameOf('  WITH t AS (select $1::int) select * from t', 1), null);
  assert.equal(names.nameOf('update bets set status = $1', 1), null, 'past the bound');
  assert.equal(names.size, 2);
  assert.equal(names.nameOf('select * from bets where id = $1', 1), first, 'a known text keeps its name past the bound');
});

describe('named statements on PostgreSQL', { skip: PG_URL ? false : PG_SKIP }, () => {
  let db: TestDatabase;
  before(async () => {
    db = await openTestDatabase('postgres');
    await db.migrate();
  });
  after(() => db.close());

  test('a statement run twice on one connection is prepared there once, under its name, and answers each call', async () => {
    // One transaction holds one connection, so the prepared statements seen are that connection's.
    const seen = await db.transaction(async (trx) => {
      const a = await sql<{ n: number }>`select ${1}::int + 1 as n`.execute(trx);
      const b = await sql<{ n: number }>`select ${41}::int + 1 as n`.execute(trx);
      assert.deepEqual([a.rows[0]?.n, b.rows[0]?.n], [2, 42]);
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return prepared.rows;
    });
    const mine = seen.filter((r) => r.statement.includes('::int + 1 as n'));
    assert.equal(mine.length, 1, JSON.stringify(seen));
    assert.match(mine[0]?.name ?? '', /^k_[0-9a-f]{20}$/);
  });
});

test('each statement goes to the driver with a callback, and its promise is settled by it', async () => {
  // The driver's promise form (no callback) let the answers' rows outlive young collections under load.
  const calls: Array<{ config: { name?: string; text: string; values: unknown[] }; callback: unknown }> = [];
  const client = {
    query(config: { name?: string; text: string; values: unknown[] }, callback?: (error: Error | undefined, result?: unknown) => void) {
      calls.push({ config, callback });
      if (typeof callback !== 'function') return Promise.resolve({ rows: [] });
      if (config.text.startsWith('fail')) setImmediate(() => callback(new Error('boom')));
      else setImmediate(() => callback(undefined, { rows: [{ n: config.values[0] }], command: 'SELECT', rowCount: 1 }));
      return undefined;
    },
    release() {},
  };
  const pool = withNamedStatements({ connect: async () => client, end: async () => {} } as unknown as pg.Pool, new NamedStatements());
  const conn = await pool.connect();
  const answer = await conn.query<{ n: number }>('select $1::int as n', [7]);
  assert.deepEqual(answer.rows, [{ n: 7 }]);
  await assert.rejects(conn.query('fail', []), /boom/);
  assert.equal(calls.length, 2);
  for (const c of calls) assert.equal(typeof c.callback, 'function', `${c.config.text} was sent without a callback`);
  assert.match(calls[0]?.config.name ?? '', /^k_/);
  assert.deepEqual(calls[0]?.config.values, [7]);
  assert.equal(calls[1]?.config.name, undefined, 'no parameters: unnamed');
});
