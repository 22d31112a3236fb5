import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerCache } from '../../src/lib/answer-cache.js';

test('AnswerCache: one load per key while fresh, shared by concurrent callers', async () => {
  const cache = new AnswerCache<number>(60_000);
  let loads = 0;
  const load = async () => ++loads;
  const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
  assert.equal(a, b);
  assert.equal(a.value, 1);
  assert.equal((await cache.get('other', load)).value, 2);
  assert.equal((await cache.get('k', load)).value, 1);
  assert.equal(loads, 2);
});

test('AnswerCache: clear() drops every answer, and a load running across it never refills the new cache', async () => {
  const cache = new AnswerCache<string>(60_000);
  let release!: (v: string) => void;
  const slow = cache.get('k', () => new Promise<string>((r) => (release = r)));
  cache.clear();
  const fresh = cache.get('k', async () => 'after');
  release('before');
  assert.equal((await slow).value, 'before');
  assert.equal((await fresh).value, 'after');
  assert.equal((await cache.get('k', async () => 'again')).value, 'after');
});

test('AnswerCache: bounded, the oldest key goes first', async () => {
  const cache = new AnswerCache<string>(60_000, 2);
  let loads = 0;
  const load = (v: string) => async () => (loads++, v);
  await cache.get('a', load('a'));
  await cache.get('b', load('b'));
  await cache.get('c', load('c'));
  await cache.get('b', load('b'));
  assert.equal(loads, 3);
  await cache.get('a', load('a'));
  assert.equal(loads, 4);
});
