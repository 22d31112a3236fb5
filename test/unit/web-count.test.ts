// Counts in the web app's words (web/src/lib/format.ts): "1 bet", "2 bets".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countOf } from '../../web/src/lib/format.js';

test('a count takes the singular for exactly one, the plural otherwise', () => {
  assert.equal(countOf(1, 'bet'), '1 bet');
  assert.equal(countOf(1, 'trade'), '1 trade');
  assert.equal(countOf(0, 'trade'), '0 trades');
  assert.equal(countOf(2, 'bet'), '2 bets');
  assert.equal(countOf(12_345, 'trade'), '12,345 trades');
  assert.equal(countOf(-1, 'point'), '-1 points');
});

test('a noun whose plural is not made with -s names it', () => {
  assert.equal(countOf(1, 'chain entry', 'chain entries'), '1 chain entry');
  assert.equal(countOf(3, 'chain entry', 'chain entries'), '3 chain entries');
});
