import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { withStatementCache } from '../../src/db/statement-cache.js';

test('the same SQL text gets the same prepared statement; the least recently used falls out past the bound', () => {
  const raw = new SQLite(':memory:');
  let prepared = 0;
  const counting = new Proxy(raw, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (text: string) => {
          prepared++;
          return target.prepare(text);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const db = withStatementCache(counting, undefined, 2);
  const a = db.prepare('select 1 as a');
  assert.equal(db.prepare('select 1 as a'), a);
  assert.equal(prepared, 1);
  db.prepare('select 2 as b');
  db.prepare('select 1 as a'); // a is now the most recently used
  db.prepare('select 3 as c'); // evicts b
  assert.equal(prepared, 3);
  db.prepare('select 1 as a');
  assert.equal(prepared, 3);
  db.prepare('select 2 as b');
  assert.equal(prepared, 4);
  db.close();
  assert.equal(raw.open, false);
});

test('a cached statement still works after the schema changes under it', () => {
  const raw = new SQLite(':memory:');
  const db = withStatementCache(raw);
  raw.exec('create table t (x integer)');
  raw.exec('insert into t values (1)');
  assert.deepEqual(db.prepare('select * from t').all([]), [{ x: 1 }]);
  raw.exec('alter table t add column y integer default 7');
  assert.deepEqual(db.prepare('select * from t').all([]), [{ x: 1, y: 7 }]);
  db.close();
});

test('rows come back as the same objects better-sqlite3 makes, whatever their columns', () => {
  const raw = new SQLite(':memory:');
  const db = withStatementCache(raw);
  raw.exec(
    "create table t (id integer primary key, name text, price real, data blob, big integer); insert into t values (1, 'a', 1.5, x'0102', 9007199254740991), (2, null, 2, null, -1)",
  );
  for (const text of [
    'select * from t order by id',
    'select id as a, name as a from t',
    'select 1 as "x y", \'q"\' as "weird""name"',
    "insert into t (name) values ('z') returning *",
  ]) {
    const expected = raw.prepare(text.replace("'z'", "'w'")).all();
    const got = db.prepare(text).all([]);
    if (text.startsWith('insert')) {
      assert.deepEqual(Object.keys(got[0] as object), Object.keys(expected[0] as object));
      continue;
    }
    assert.deepEqual(got, expected, text);
    for (const [i, row] of (got as object[]).entries()) assert.equal(Object.getPrototypeOf(row), Object.getPrototypeOf(expected[i]), text);
  }
  assert.deepEqual(
    [...db.prepare('select id, name from t where id <= 2 order by id').iterate([])],
    [
      { id: 1, name: 'a' },
      { id: 2, name: null },
    ],
  );
  assert.deepEqual(db.prepare('select * from t where id = 99').all([]), []);
  db.close();
});

test('a cached reader reads its columns again after a schema change through the cache, even one that keeps their number', () => {
  const raw = new SQLite(':memory:');
  const db = withStatementCache(raw);
  db.prepare('create table t (x integer)').run([]);
  db.prepare('insert into t values (1)').run([]);
  assert.deepEqual(db.prepare('select * from t').all([]), [{ x: 1 }]);
  db.prepare('alter table t rename column x to y').run([]);
  assert.deepEqual(db.prepare('select * from t').all([]), [{ y: 1 }]);
  db.close();
});
