// The shared answers (leaderboards, public profiles): one make for everyone
// asking at once, a lifetime of at most SHARED_ANSWER_TTL_MS by the service's
// clock, and drops that take effect at once, also for a make in progress.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../src/lib/clock.js';
import { SHARED_ANSWER_TTL_MS, SharedAnswers } from '../../src/services/shared-answers.js';

function counter() {
  let n = 0;
  return {
    make: async () => ({ n: ++n }),
    get count() {
      return n;
    },
  };
}

test('callers asking together share one make; the answer lives at most its lifetime', async () => {
  const clock = new FakeClock();
  const shared = new SharedAnswers(clock);
  const c = counter();
  const answers = await Promise.all([1, 2, 3].map(() => shared.leaderboard('all', c.make)));
  assert.deepEqual(answers, [{ n: 1 }, { n: 1 }, { n: 1 }]);
  clock.advance(SHARED_ANSWER_TTL_MS);
  assert.deepEqual(await shared.leaderboard('all', c.make), { n: 1 });
  clock.advance(1);
  assert.deepEqual(await shared.leaderboard('all', c.make), { n: 2 });
  assert.equal(c.count, 2);
});

test('dropLeaderboards makes every leaderboard anew; profiles stay', async () => {
  const shared = new SharedAnswers(new FakeClock());
  const board = counter();
  const profile = counter();
  await shared.leaderboard('all', board.make);
  await shared.leaderboard('7d', board.make);
  await shared.profile(1, '100|0', profile.make);
  shared.dropLeaderboards();
  await shared.leaderboard('all', board.make);
  await shared.leaderboard('7d', board.make);
  await shared.profile(1, '100|0', profile.make);
  assert.equal(board.count, 4);
  assert.equal(profile.count, 1);
});

test("dropProfile drops every page of that user's profile, no other user's", async () => {
  const shared = new SharedAnswers(new FakeClock());
  const one = counter();
  const two = counter();
  await shared.profile(1, '100|0', one.make);
  await shared.profile(1, '10|20', one.make);
  await shared.profile(2, '100|0', two.make);
  shared.dropProfile(1);
  await shared.profile(1, '100|0', one.make);
  await shared.profile(1, '10|20', one.make);
  await shared.profile(2, '100|0', two.make);
  assert.equal(one.count, 4);
  assert.equal(two.count, 1);
});

test('an answer dropped while it is being made reaches its callers but is not kept', async () => {
  const shared = new SharedAnswers(new FakeClock());
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let makes = 0;
  const slow = async () => {
    makes += 1;
    await gate;
    return { made: makes };
  };
  const first = shared.profile(7, '100|0', slow);
  shared.dropProfile(7);
  release();
  assert.deepEqual(await first, { made: 1 });
  assert.deepEqual(await shared.profile(7, '100|0', async () => ({ made: 'again' })), { made: 'again' });
});

test('a failed make is not kept: the next caller makes it again', async () => {
  const shared = new SharedAnswers(new FakeClock());
  await assert.rejects(
    shared.profile(9, '100|0', async () => Promise.reject(new Error('User not found'))),
    /User not found/,
  );
  assert.deepEqual(await shared.profile(9, '100|0', async () => ({ ok: true })), { ok: true });
});
