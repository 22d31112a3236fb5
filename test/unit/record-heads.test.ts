import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordHeads } from '../../src/services/record-heads.js';

test('record heads: set replaces, forget drops, and past the bound the least recently set goes first', () => {
  const heads = new RecordHeads(2);
  heads.set(1, { seq: 1, hash: 'a' });
  heads.set(2, { seq: 1, hash: 'b' });
  heads.set(1, { seq: 2, hash: 'c' });
  assert.deepEqual(heads.get(1), { seq: 2, hash: 'c' });
  heads.set(3, { seq: 1, hash: 'd' });
  assert.equal(heads.get(2), undefined, 'user 2 was set least recently');
  assert.deepEqual(heads.get(1), { seq: 2, hash: 'c' });
  assert.equal(heads.size, 2);
  heads.forget(1);
  assert.equal(heads.get(1), undefined);
  assert.equal(heads.size, 1);
});
