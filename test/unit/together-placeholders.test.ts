// Statements sent together on PostgreSQL (src/db/together.ts) share one list
// of parameters: each one's placeholders are shifted past those before it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renumbered } from '../../src/db/together.js';

test('placeholders are shifted by the parameters before them', () => {
  assert.equal(renumbered('update t set a = $1 where id = $2', 3), 'update t set a = $4 where id = $5');
  assert.equal(renumbered('select $10, $1', 2), 'select $12, $3');
});

test('quoted text is left as it is: string literals (with doubled quotes) and quoted identifiers', () => {
  assert.equal(renumbered(`select 'a $1 b', 'it''s $2', "col$3", $1`, 5), `select 'a $1 b', 'it''s $2', "col$3", $6`);
});

test('no offset: the text unchanged', () => {
  const text = 'insert into t values ($1, $2)';
  assert.equal(renumbered(text, 0), text);
});
