import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMap } from '../../src/lib/bounded-map.js';

test('bounded map: past the bound the oldest key goes; setting a key again makes it the newest', () => {
  const m = new BoundedMap<string, number>(3);
  m.set('a', 1).set('b', 2).set('c', 3);
  m.set('a', 10); // now the newest: b is the oldest
  m.set('d', 4);
  assert.deepEqual([...m.entries()], [
    ['c', 3],
    ['a', 10],
    ['d', 4],
  ]);
  assert.equal(m.size, 3);
});

test('bounded map: replacing a key at the bound drops nothing else', () => {
  const m = new BoundedMap<number, string>(2);
  m.set(1, 'x').set(2, 'y');
  m.set(2, 'z');
  assert.deepEqual([...m.keys()], [1, 2]);
  assert.equal(m.get(2), 'z');
});

test('bounded map: delete and clear free room like a Map', () => {
  const m = new BoundedMap<number, number>(2);
  m.set(1, 1).set(2, 2);
  m.delete(1);
  m.set(3, 3);
  assert.deepEqual([...m.keys()], [2, 3]);
  m.clear();
  assert.equal(m.size, 0);
});

test('bounded map: a bound below one is refused', () => {
  assert.throws(() => new BoundedMap(0), RangeError);
  assert.throws(() => new BoundedMap(1.5), RangeError);
});
