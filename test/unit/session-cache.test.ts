import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveSessionCache } from '../../src/services/session-cache.js';

test('a remembered session answers until its expiry and at most the maximum age', () => {
  const c = new LiveSessionCache(10, 1_000);
  c.remember(c.ticket(), 's1', 7, 5_000, 100);
  assert.equal(c.userOf('s1', 100), 7);
  assert.equal(c.userOf('s1', 1_099), 7);
  assert.equal(c.userOf('s1', 1_100), undefined, 'older than the maximum age');
  c.remember(c.ticket(), 's2', 7, 500, 100);
  assert.equal(c.userOf('s2', 499), 7);
  assert.equal(c.userOf('s2', 500), undefined, 'expired');
  c.remember(c.ticket(), 's3', 7, 5_000, 100);
  assert.equal(c.userOf('s3', 99), undefined, 'a clock that went back does not extend it');
  assert.equal(c.userOf('unknown', 100), undefined);
});

test('a read that raced a revocation is not remembered', () => {
  const c = new LiveSessionCache();
  const ticket = c.ticket();
  c.forget('other');
  c.remember(ticket, 's1', 7, 5_000, 0);
  assert.equal(c.userOf('s1', 1), undefined);
  const t2 = c.ticket();
  c.forgetUser(99);
  c.remember(t2, 's1', 7, 5_000, 0);
  assert.equal(c.userOf('s1', 1), undefined);
  c.remember(c.ticket(), 's1', 7, 5_000, 0);
  assert.equal(c.userOf('s1', 1), 7);
});

test('forget drops one session; forgetUser drops a user’s sessions but the one kept', () => {
  const c = new LiveSessionCache();
  for (const [id, user] of [['a1', 1], ['a2', 1], ['a3', 1], ['b1', 2]] as const) c.remember(c.ticket(), id, user, 5_000, 0);
  c.forget('a1');
  assert.equal(c.userOf('a1', 1), undefined);
  c.forgetUser(1, 'a3');
  assert.deepEqual(['a2', 'a3', 'b1'].map((id) => c.userOf(id, 1)), [undefined, 1, 2]);
  c.forgetUser(1);
  assert.equal(c.userOf('a3', 1), undefined);
  assert.equal(c.userOf('b1', 1), 2);
});

test('the cache holds at most its size, dropping the oldest', () => {
  const c = new LiveSessionCache(3);
  for (let i = 0; i < 5; i++) c.remember(c.ticket(), `s${i}`, i, 5_000, 0);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => c.userOf(`s${i}`, 1)), [undefined, undefined, 2, 3, 4]);
});
