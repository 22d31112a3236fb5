// Password hashes on worker threads at the lowest CPU priority
// (src/services/hash-threads.ts): the hashes themselves, the hashes stored
// before (made by the former library) still verifying, the threads' priority
// as Linux reports it, the bound on threads, and a lost thread being an
// error rather than a wrong password.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { argon2idParams, HASH_THREAD_NICE, HashThreadLostError, threadHashing } from '../../src/services/hash-threads.js';
import { HASH_OPTIONS } from '../../src/services/passwords.js';

const PASSWORD = 'correct horse battery staple';

/** Made by the `argon2` package the service used before, with today's settings, the settings before them, and argon2i. */
const FORMER = {
  current: '$argon2id$v=19$m=7168,p=1,t=5$zNUpsDMQNEJOJnPJZhe6uQ$6AieoIR4n+wMmwkzBcX28nGrSjBjyh7M6fisLZz9yhc',
  oldSettings: '$argon2id$v=19$m=19456,p=1,t=2$dSh+ZoTZfCjfJuM+j3I4gw$eDpUdKH6Ykx7PT4IDYVxvKhj3inYrzxTQfJVLVj99/s',
  argon2i: '$argon2i$v=19$m=7168,p=1,t=5$WnyjAbQU8IMx/x6skd9aVg$jGCnvtzEbyxYPWKNhbmNVv8XtJT+XFu7Rv4WkhpWJ/g',
};

describe('password hashing threads', () => {
  const hashing = threadHashing(2, HASH_OPTIONS);
  after(() => hashing.threads.close());

  test('a hash is argon2id with the settings, verifies its password and no other', async () => {
    const hash = await hashing.hash(PASSWORD);
    assert.match(hash, /^\$argon2id\$v=19\$m=7168,t=5,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    assert.notEqual(await hashing.hash(PASSWORD), hash, 'a fresh salt each time');
    assert.equal(await hashing.verify(hash, PASSWORD), true);
    assert.equal(await hashing.verify(hash, `${PASSWORD}!`), false);
    assert.equal(hashing.needsRehash(hash), false);
  });

  test('hashes stored by the former library verify; those with other settings need making again', async () => {
    for (const [name, hash] of Object.entries(FORMER)) {
      assert.equal(await hashing.verify(hash, PASSWORD), true, name);
      assert.equal(await hashing.verify(hash, 'not the password'), false, name);
    }
    assert.equal(hashing.needsRehash(FORMER.current), false, 'the same settings, parameters in another order');
    assert.equal(hashing.needsRehash(FORMER.oldSettings), true);
    assert.equal(hashing.needsRehash(FORMER.argon2i), true, 'another variant');
  });

  test('a stored hash it cannot read is a wrong password, and needs no rehash', async () => {
    for (const junk of ['', 'not a hash at all', '$argon2id$v=19$m=7168,t=5,p=1$short', '$2b$12$abcdefghijklmnopqrstuv']) {
      assert.equal(await hashing.verify(junk, PASSWORD), false, junk);
      assert.equal(hashing.needsRehash(junk), false, junk);
    }
  });

  test('argon2idParams reads the parameters in any order and refuses anything else', () => {
    assert.deepEqual(argon2idParams(FORMER.current), { memoryCost: 7168, timeCost: 5, parallelism: 1 });
    assert.deepEqual(argon2idParams('$argon2id$v=19$m=7168,t=5,p=1$c2FsdA$aGFzaA'), { memoryCost: 7168, timeCost: 5, parallelism: 1 });
    for (const other of [
      FORMER.argon2i,
      '$argon2id$v=16$m=7168,t=5,p=1$c2FsdA$aGFzaA',
      '$argon2id$v=19$m=7168,t=5$c2FsdA$aGFzaA',
      '$argon2id$v=19$m=7168,t=5,p=1,x=2$c2FsdA$aGFzaA',
      '$argon2id$v=19$m=-1,t=5,p=1$c2FsdA$aGFzaA',
      '$argon2id$v=19$m=7168,t=5,p=1$c2FsdA',
    ])
      assert.equal(argon2idParams(other), null, other);
  });

  test('never more threads than asked for; more hashes than threads wait their turn', async () => {
    const hashes = await Promise.all(Array.from({ length: 7 }, (_, i) => hashing.hash(`${PASSWORD} ${i}`)));
    assert.equal(new Set(hashes).size, 7);
    const verified = await Promise.all(hashes.map((h, i) => hashing.verify(h, `${PASSWORD} ${i}`)));
    assert.deepEqual(verified, Array(7).fill(true));
    assert.equal((await hashing.threads.priorities()).length, 2);
  });

  test('each thread runs at the lowest priority, as the kernel reports it; the event loop keeps its own', {
    skip: process.platform !== 'linux' && 'Linux sets a priority per thread',
  }, async () => {
    await hashing.hash(PASSWORD);
    const threads = await hashing.threads.priorities();
    assert.ok(threads.length > 0);
    // /proc/self/task/TID/stat: the 19th field is the nice value (after the command, which is in parentheses).
    const niceOf = (tid: number) => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    for (const t of threads) {
      assert.equal(t.niced, true);
      assert.equal(niceOf(t.tid!), HASH_THREAD_NICE, `thread ${t.tid}`);
    }
    assert.equal(niceOf(process.pid), 0, 'the event loop is left at its priority');
  });
});

describe('a lost hashing thread', () => {
  test('a verification cut short fails as an error, not as a wrong password; waiting work fails too', async () => {
    const hashing = threadHashing(1, HASH_OPTIONS);
    const hash = await hashing.hash(PASSWORD);
    const running = assert.rejects(hashing.verify(hash, PASSWORD), HashThreadLostError);
    const waiting = assert.rejects(hashing.hash(PASSWORD), HashThreadLostError);
    await hashing.threads.close();
    await running;
    await waiting;
    await assert.rejects(hashing.hash(PASSWORD), HashThreadLostError);
  });
});
