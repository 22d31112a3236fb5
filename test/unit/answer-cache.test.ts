import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerCache } from '../../src/lib/answer-cache.js';

const answer = (json: string, deps?: number[]) => async () => ({ json, deps });

/** A load that waits until released, to overlap it with changes. */
function gated(json: string, deps?: number[]) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { load: async () => (await gate, { json, deps }), release };
}

test('one load per key while fresh, shared by concurrent callers', async () => {
  const cache = new AnswerCache(60_000);
  let loads = 0;
  const load = async () => ({ json: String(++loads) });
  assert.deepEqual(await Promise.all([cache.get('k', load), cache.get('k', load)]), ['1', '1']);
  assert.equal(await cache.get('other', load), '2');
  assert.equal(await cache.get('k', load), '1');
  assert.equal(loads, 2);
  assert.equal(cache.size, 2);
});

test('invalidate(user) drops exactly the answers naming that user, known before or found while loading', async () => {
  const cache = new AnswerCache(60_000);
  await cache.get('history|1', answer('h1'), [1]);
  await cache.get('history|2', answer('h2'), [2]);
  await cache.get('feed|3', answer('f3', [1, 5]), [3]);
  cache.invalidate(5);
  assert.equal(await cache.get('feed|3', answer('f3b')), 'f3b');
  assert.equal(await cache.get('history|1', answer('h1b')), 'h1');
  cache.invalidate(1);
  assert.equal(await cache.get('history|1', answer('h1c')), 'h1c');
  assert.equal(await cache.get('history|2', answer('h2c')), 'h2');
});

test('an answer whose user changed while it loaded is given to its callers but not kept', async () => {
  const cache = new AnswerCache(60_000);
  const slow = gated('before', [9]);
  const first = cache.get('feed|1', slow.load, [1]);
  cache.invalidate(9); // 9 was not known to the entry yet: only the load's own list names it
  slow.release();
  assert.equal(await first, 'before');
  assert.equal(await cache.get('feed|1', answer('after')), 'after');
});

test('clear() drops everything, and a load running across it never fills the new cache', async () => {
  const cache = new AnswerCache(60_000);
  const slow = gated('before');
  const first = cache.get('k', slow.load);
  cache.clear();
  const second = cache.get('k', answer('after'));
  slow.release();
  assert.equal(await first, 'before');
  assert.equal(await second, 'after');
  assert.equal(await cache.get('k', answer('again')), 'after');
});

test('bounded by size and by count, oldest first', async () => {
  const bySize = new AnswerCache(60_000, 10);
  await bySize.get('a', answer('aaaa'));
  await bySize.get('b', answer('bbbb'));
  await bySize.get('c', answer('cccc')); // 12 > 10: a goes
  assert.equal(bySize.size, 8);
  assert.equal(await bySize.get('b', answer('new')), 'bbbb');
  assert.equal(await bySize.get('a', answer('new')), 'new');

  const byCount = new AnswerCache(60_000, 1_000_000, 2);
  await assert.rejects(byCount.get('x', async () => Promise.reject(new Error('404'))));
  await byCount.get('y', answer('y'));
  await byCount.get('z', answer('z'));
  await byCount.get('w', answer('w'));
  assert.equal(await byCount.get('y', answer('y2')), 'y2');
});
