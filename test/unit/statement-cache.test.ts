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
  const db = withStatementCache(counting, 2);
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
