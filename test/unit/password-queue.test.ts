// The bounded, fair queue in front of password hashing: how many run, how many
// wait, how long, how many places one address or account may hold, and the
// places kept for logins.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { type HashQueueLimits, PasswordHasher } from '../../src/services/passwords.js';
import { GatedHashing, settled } from '../helpers/fake-hashing.js';

const LIMITS: HashQueueLimits = { concurrency: 2, maxWaiting: 4, maxWaitMs: 60_000, perClient: 3, loginReserve: 0 };

function setUp(limits: Partial<HashQueueLimits> = {}) {
  const hashing = new GatedHashing();
  const hasher = new PasswordHasher({ ...LIMITS, ...limits }, hashing);
  hashing.hold();
  return { hashing, hasher };
}

/** The status and Retry-After of what fn throws. */
function refusal(fn: () => unknown): [number, string | undefined] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return [err.statusCode, err.headers['retry-after']];
  }
  assert.fail('expected a refusal');
}

describe('password hash queue', () => {
  test('at most `concurrency` run; the rest wait in order and start as threads free up', async () => {
    const { hashing, hasher } = setUp({ perClient: Number.POSITIVE_INFINITY });
    const order: number[] = [];
    const all = Array.from({ length: 5 }, (_, i) => hasher.hash(`p${i}`, { ip: '1.1.1.1' }).then(() => order.push(i)));
    await settled('two running', () => hashing.inFlight === 2);
    assert.deepEqual(hasher.load, { running: 2, waiting: 3 });
    assert.equal(hashing.started, 2);
    hashing.release();
    await Promise.all(all);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    assert.deepEqual(hasher.load, { running: 0, waiting: 0 });
  });

  test('one address holds at most its share (429 at once); another address still gets a place', async () => {
    const { hashing, hasher } = setUp();
    const mine = Array.from({ length: 3 }, (_, i) => hasher.verify('fake$x', `guess ${i}`, { ip: '6.6.6.6', account: `a${i}@x` }));
    assert.deepEqual(
      refusal(() => hasher.reserve({ ip: '6.6.6.6', account: 'other@x' })),
      [429, '1'],
    );
    const theirs = hasher.verify('fake$right', 'right', { ip: '7.7.7.7', account: 'owner@x' });
    hashing.release();
    assert.deepEqual(await Promise.all(mine), [false, false, false]);
    assert.equal(await theirs, true);
    assert.equal(hashing.started, 4, 'the refused attempt never reached the hashing');
  });

  test('one account holds at most its share, whatever the addresses', async () => {
    const { hashing, hasher } = setUp();
    const guesses = Array.from({ length: 3 }, (_, i) => hasher.verify('fake$x', 'guess', { ip: `10.0.0.${i}`, account: 'victim@x' }));
    assert.equal(refusal(() => hasher.reserve({ ip: '10.0.0.99', account: 'victim@x' }))[0], 429);
    const other = hasher.verify('fake$y', 'y', { ip: '10.0.0.99', account: 'other@x' });
    hashing.release();
    await Promise.all([...guesses, other]);
  });

  test('a full queue answers 503 with Retry-After at once; places come back as hashes finish', async () => {
    const { hashing, hasher } = setUp({ perClient: Number.POSITIVE_INFINITY });
    const admitted = Array.from({ length: 6 }, (_, i) => hasher.hash('p', { ip: `10.0.1.${i}` }));
    assert.deepEqual(hasher.load, { running: 2, waiting: 4 });
    assert.deepEqual(
      refusal(() => hasher.reserve({ ip: '10.0.1.200' })),
      [503, '60'],
    );
    hashing.release();
    await Promise.all(admitted);
    assert.equal(await hasher.hash('p', { ip: '10.0.1.200' }), 'fake$p');
  });

  test('a place that waits longer than the limit is refused (503) and leaves the line', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { hashing, hasher } = setUp({ maxWaitMs: 1000 });
      const running = [hasher.hash('a', { ip: '1.0.0.1' }), hasher.hash('b', { ip: '1.0.0.2' })];
      const late = hasher.hash('c', { ip: '1.0.0.3', account: 'late@x' });
      assert.deepEqual(hasher.load, { running: 2, waiting: 1 });
      mock.timers.tick(999);
      assert.equal(hasher.load.waiting, 1);
      mock.timers.tick(1);
      await assert.rejects(late, (err: AppError) => err.statusCode === 503 && err.headers['retry-after'] === '1');
      assert.deepEqual(hasher.load, { running: 2, waiting: 0 });
      hashing.release();
      await Promise.all(running);
      assert.equal(hashing.started, 2, 'the refused one was never hashed');
    } finally {
      mock.timers.reset();
    }
  });

  test('a place given back unused frees its thread or its spot in line, and its share', async () => {
    const { hashing, hasher } = setUp({ concurrency: 1, perClient: 1 });
    const first = hasher.reserve({ ip: '2.0.0.1' });
    const second = hasher.reserve({ ip: '2.0.0.2' });
    assert.deepEqual(hasher.load, { running: 1, waiting: 1 });
    second.release();
    assert.deepEqual(hasher.load, { running: 1, waiting: 0 });
    first.release();
    assert.deepEqual(hasher.load, { running: 0, waiting: 0 });
    // Both addresses may take a place again.
    hashing.release();
    assert.equal(await hasher.hash('x', { ip: '2.0.0.1' }), 'fake$x');
    assert.equal(await hasher.hash('y', { ip: '2.0.0.2' }), 'fake$y');
    await assert.rejects(first.hash('again'), /used once/);
  });
  test("other work fills all but the logins' places (503 beyond); a login still gets one, and the next free thread", async () => {
    const { hashing, hasher } = setUp({ perClient: Number.POSITIVE_INFINITY, loginReserve: 2 });
    const order: string[] = [];
    const others = Array.from({ length: 4 }, (_, i) => hasher.hash('p', { ip: `10.0.2.${i}` }).then(() => order.push(`other ${i}`)));
    assert.deepEqual(hasher.load, { running: 2, waiting: 2 });
    assert.deepEqual(
      refusal(() => hasher.reserve({ ip: '10.0.2.200', account: 'changer@x' })),
      [503, '60'],
    );
    const logins = [0, 1].map((i) =>
      hasher.verify('fake$p', 'p', { ip: `10.0.3.${i}`, account: `owner${i}@x`, login: true }).then(() => order.push(`login ${i}`)),
    );
    assert.deepEqual(hasher.load, { running: 2, waiting: 4 });
    assert.equal(refusal(() => hasher.reserve({ ip: '10.0.3.9', account: 'late@x', login: true }))[0], 503, 'the queue itself is full');
    hashing.release();
    await Promise.all([...others, ...logins]);
    assert.deepEqual(order, ['other 0', 'other 1', 'login 0', 'login 1', 'other 2', 'other 3'], 'waiting logins go first');
    assert.equal(await hasher.hash('p', { ip: '10.0.2.200' }), 'fake$p', 'places come back');
  });
});
