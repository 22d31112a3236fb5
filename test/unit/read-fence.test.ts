import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReadFence } from '../../src/db/read-fence.js';

describe('ReadFence', () => {
  test('afterSync runs a read at once while no commit awaits its sync', async () => {
    const fence = new ReadFence();
    assert.equal(await fence.afterSync(() => 'read'), 'read');
  });

  test('afterSync waits for every raised commit to be lowered', async () => {
    const fence = new ReadFence();
    fence.raise();
    fence.raise();
    let ran = false;
    const read = fence.afterSync(() => {
      ran = true;
    });
    fence.lower();
    await new Promise(setImmediate);
    assert.equal(ran, false, 'one commit still awaits its sync');
    fence.lower();
    await read;
    assert.equal(ran, true);
  });

  test('a commit made in the turn the fence came down holds the read back: it never runs with the fence up', async () => {
    const fence = new ReadFence();
    fence.raise();
    const upWhenRead: boolean[] = [];
    const read = fence.afterSync(() => upWhenRead.push(fence.up));
    fence.lower();
    // Queued after the waiter's wake-up and before the read's own continuation: a commit another task made meanwhile.
    queueMicrotask(() => fence.raise());
    await new Promise(setImmediate);
    assert.deepEqual(upWhenRead, [], 'not read while the new commit awaits its sync');
    fence.lower();
    await read;
    assert.deepEqual(upWhenRead, [false]);
  });
});
