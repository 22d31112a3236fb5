import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerCache } from '../../src/lib/answer-cache.js';

/** The kept answer as text (the cache keeps UTF-8 bytes). */
const get = (c: AnswerCache, ...args: Parameters<AnswerCache['get']>) => c.get(...args).then((body) => body.toString('utf8'));

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
  assert.deepEqual(await Promise.all([get(cache, 'k', load), get(cache, 'k', load)]), ['1', '1']);
  assert.equal(await get(cache, 'other', load), '2');
  assert.equal(await get(cache, 'k', load), '1');
  assert.equal(loads, 2);
  assert.equal(cache.size, 2);
});

test('invalidate(user) drops exactly the answers naming that user, known before or found while loading', async () => {
  const cache = new AnswerCache(60_000);
  await get(cache, 'history|1', answer('h1'), [1]);
  await get(cache, 'history|2', answer('h2'), [2]);
  await get(cache, 'feed|3', answer('f3', [1, 5]), [3]);
  cache.invalidate(5);
  assert.equal(await get(cache, 'feed|3', answer('f3b')), 'f3b');
  assert.equal(await get(cache, 'history|1', answer('h1b')), 'h1');
  cache.invalidate(1);
  assert.equal(await get(cache, 'history|1', answer('h1c')), 'h1c');
  assert.equal(await get(cache, 'history|2', answer('h2c')), 'h2');
});

test('an answer whose user changed while it loaded is given to its callers but not kept', async () => {
  const cache = new AnswerCache(60_000);
  const slow = gated('before', [9]);
  const first = get(cache, 'feed|1', slow.load, [1]);
  cache.invalidate(9); // 9 was not known to the entry yet: only the load's own list names it
  slow.release();
  assert.equal(await first, 'before');
  assert.equal(await get(cache, 'feed|1', answer('after')), 'after');
});

test('clear() drops everything, and a load running across it never fills the new cache', async () => {
  const cache = new AnswerCache(60_000);
  const slow = gated('before');
  const first = get(cache, 'k', slow.load);
  cache.clear();
  const second = get(cache, 'k', answer('after'));
  slow.release();
  assert.equal(await first, 'before');
  assert.equal(await second, 'after');
  assert.equal(await get(cache, 'k', answer('again')), 'after');
});

test('bounded by size and by count, oldest first', async () => {
  const bySize = new AnswerCache(60_000, 10);
  await get(bySize, 'a', answer('aaaa'));
  await get(bySize, 'b', answer('bbbb'));
  await get(bySize, 'c', answer('cccc')); // 12 > 10: a goes
  assert.equal(bySize.size, 8);
  assert.equal(await get(bySize, 'b', answer('new')), 'bbbb');
  assert.equal(await get(bySize, 'a', answer('new')), 'new');

  const byCount = new AnswerCache(60_000, 1_000_000, 2);
  await assert.rejects(get(byCount, 'x', async () => Promise.reject(new Error('404'))));
  await get(byCount, 'y', answer('y'));
  await get(byCount, 'z', answer('z'));
  await get(byCount, 'w', answer('w'));
  assert.equal(await get(byCount, 'y', answer('y2')), 'y2');
});

test('answers are kept as UTF-8 bytes and their size counted in bytes', async () => {
  const cache = new AnswerCache(60_000);
  const body = await cache.get('k', answer('{"name":"Zoë €"}'));
  assert.ok(Buffer.isBuffer(body));
  assert.equal(body.toString('utf8'), '{"name":"Zoë €"}');
  assert.equal(cache.size, Buffer.byteLength('{"name":"Zoë €"}'));
});

test('peek() gives the kept bytes while fresh and never loads: nothing while loading, after a drop or once expired', async () => {
  const cache = new AnswerCache(40);
  assert.equal(cache.peek('k'), undefined);
  const slow = gated('v', [1]);
  const pending = cache.get('k', slow.load, [1]);
  assert.equal(cache.peek('k'), undefined, 'still loading');
  slow.release();
  await pending;
  assert.equal(cache.peek('k')?.toString('utf8'), 'v');
  cache.invalidate(1);
  assert.equal(cache.peek('k'), undefined, 'dropped by a change');
  await get(cache, 'k', answer('w'));
  cache.clear();
  assert.equal(cache.peek('k'), undefined, 'cleared');
  await get(cache, 'k', answer('x'));
  assert.equal(cache.peek('k')?.toString('utf8'), 'x');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(cache.peek('k'), undefined, 'expired');
});
