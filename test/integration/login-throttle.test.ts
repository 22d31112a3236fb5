// The per-account ceiling on failed password checks (guesses spread over many
// addresses), in memory and through Redis: the same rules, claimed atomically.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { type LoginThrottle, type LoginThrottleLimits, MemoryLoginThrottle, RedisLoginThrottle } from '../../src/services/login-throttle.js';
import { REDIS_URL, testRedis } from '../helpers/db.js';

const LIMITS: LoginThrottleLimits = { freeFailures: 5, accountFreeFailures: 10, accountMaxDelayMs: 8000 };
const HOUR = 3600 * 1000;
const ip = (i: number) => `10.1.${Math.floor(i / 250)}.${i % 250}`;

function suite(make: (limits: LoginThrottleLimits) => LoginThrottle): void {
  test('after N failures from any addresses, every address waits for that account; other accounts do not', async () => {
    const t = make(LIMITS);
    for (let i = 0; i < 10; i++) assert.equal(await t.claim(ip(i), 'victim@x', 0), 0, `address ${i}, one guess each`);
    assert.equal(await t.claim(ip(100), 'victim@x', 0), 1000, 'a new address waits');
    assert.equal(await t.claim(ip(100), 'victim@x', 500), 500, 'a refused attempt does not count');
    assert.equal(await t.claim(ip(100), 'someone-else@x', 0), 0, 'another account is not affected');
    assert.equal(await t.claim(ip(101), 'victim@x', 1000), 0, 'after the wait one attempt goes through');
    assert.equal(await t.claim(ip(102), 'victim@x', 1000), 2000, 'and the wait doubles');
  });

  test('the account-wide wait is bounded', async () => {
    const t = make(LIMITS);
    let now = 0;
    let longest = 0;
    for (let i = 0; i < 60; i++) {
      const wait = await t.claim(ip(i), 'bounded@x', now);
      longest = Math.max(longest, wait);
      now += wait;
    }
    assert.equal(longest, LIMITS.accountMaxDelayMs);
  });

  test('an address that signed in to the account is exempt from the account-wide wait, not from its own', async () => {
    const t = make(LIMITS);
    assert.equal(await t.claim('9.9.9.9', 'owner@x', 0), 0);
    await t.recordSuccess('9.9.9.9', 'owner@x');
    for (let i = 0; i < 10; i++) await t.claim(ip(i), 'owner@x', 0);
    assert.ok((await t.claim(ip(200), 'owner@x', 0)) > 0, 'strangers wait');
    for (let i = 0; i < 5; i++) assert.equal(await t.claim('9.9.9.9', 'owner@x', 0), 0, 'the owner is let through');
    assert.equal(await t.claim('9.9.9.9', 'owner@x', 0), 1000, 'their own address still has its own limit');
  });

  test('successes do not count toward the ceiling', async () => {
    const t = make(LIMITS);
    for (let i = 0; i < 30; i++) {
      assert.equal(await t.claim(ip(i), 'busy@x', 0), 0);
      await t.recordSuccess(ip(i), 'busy@x');
    }
    assert.equal(await t.claim(ip(300), 'busy@x', 0), 0);
  });
}

describe('login throttle: per-account ceiling [memory]', () => {
  suite((limits) => new MemoryLoginThrottle(limits));

  test('the count is forgotten an hour after the last failure', async () => {
    const t = new MemoryLoginThrottle(LIMITS);
    for (let i = 0; i < 10; i++) await t.claim(ip(i), 'decays@x', 0);
    assert.equal(await t.claim(ip(50), 'decays@x', 0), 1000);
    assert.equal(await t.claim(ip(50), 'decays@x', HOUR + 1), 0, 'an hour later the account is free again');
    for (let i = 0; i < 8; i++) assert.equal(await t.claim(ip(60 + i), 'decays@x', HOUR + 1), 0, 'with its free failures back');
  });
});

describe('login throttle: per-account ceiling [redis]', {
  skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set: Redis throttle tests skipped',
}, () => {
  let redis: Redis;
  before(() => {
    redis = testRedis();
  });
  after(() => redis.disconnect());
  // A fresh key space for each throttle, so runs do not see each other.
  suite((limits) => new RedisLoginThrottle(redis, limits, `test-login-throttle:${randomBytes(6).toString('hex')}:`));
});
