import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig, originsOf, ConfigError, shippedData } from '../../src/config.js';
import { capacitiesOf, deletedIdentity, normalizeEmail, passwordProblem, usernameKey, usernameProblem } from '../../src/domain/accounts.js';
import { isCrossSite } from '../../src/http/cross-site.js';
import { delayAfter, type LoginThrottleLimits, MemoryLoginThrottle } from '../../src/services/login-throttle.js';

const pairOnly = (freeFailures: number): LoginThrottleLimits => ({ freeFailures, accountFreeFailures: 1_000_000, accountMaxDelayMs: 60_000 });

describe('account rules', () => {
  test('usernames are unique without regard to case; emails compare lower-cased', () => {
    assert.equal(usernameKey('Alice_1'), 'alice_1');
    assert.equal(normalizeEmail('  Bob@Example.COM '), 'bob@example.com');
  });

  test('passwords: 15 to 256 characters, not a common one, compared exactly', () => {
    const common = shippedData().commonPasswords;
    assert.match(passwordProblem('short', common) ?? '', /at least 15/);
    assert.equal(passwordProblem(`${'x'.repeat(15)}y`, common), null);
    assert.match(passwordProblem('a'.repeat(257), common) ?? '', /at most 256/);
    assert.match(passwordProblem('123456789012345', common) ?? '', /too common/);
    assert.match(passwordProblem('1234567890qwerty', common) ?? '', /too common/);
    assert.equal(passwordProblem(' a perfectly fine passphrase ', common), null, 'spaces are kept, not trimmed');
  });

  test('usernames starting with "deleted" (any case) are reserved; others are not', () => {
    for (const name of ['deleted', 'deleted_42', 'Deleted_42', 'DELETEDfoo', 'deletedfoo'])
      assert.match(usernameProblem(name) ?? '', /reserved/, name);
    for (const name of ['alice', 'undeleted', 'delete_me', 'dele_ted']) assert.equal(usernameProblem(name), null, name);
  });

  test("a deleted account's name and email are outside what registration accepts, one per id", () => {
    const schemaName = /^[A-Za-z0-9_]{3,30}$/;
    for (const id of [1, 42, Number.MAX_SAFE_INTEGER]) {
      const { username, email } = deletedIdentity(id);
      assert.doesNotMatch(username, schemaName);
      assert.ok(username.length <= 30, 'fits the column');
      assert.ok(username.includes(String(id)) && email.includes(String(id)));
      assert.match(email, /\.invalid$/);
      assert.match(email.split('@')[0] ?? '', /:/, 'a colon is outside the email format');
    }
    assert.notEqual(deletedIdentity(1).username, deletedIdentity(11).username);
  });

  test('capacities are the base plus the plan extras', () => {
    assert.deepEqual(capacitiesOf({ baseBets: 10, baseFollows: 20 }, { extra_bets: 5, extra_slots: 30 }), {
      bet_capacity: 15,
      follow_capacity: 50,
    });
  });
});

describe('login throttle', () => {
  test('delays grow after the free failures and are capped', () => {
    assert.equal(delayAfter(4, 5), 0);
    assert.equal(delayAfter(5, 5), 1000);
    assert.equal(delayAfter(7, 5), 4000);
    assert.equal(delayAfter(60, 5), 15 * 60 * 1000);
    assert.equal(delayAfter(60, 5, 60_000), 60_000, 'the account-wide cap');
  });

  test('keyed by ip and account together; an attempt counts until a success clears it', async () => {
    const t = new MemoryLoginThrottle(pairOnly(2));
    assert.equal(await t.claim('1.1.1.1', 'a@x', 0), 0);
    assert.equal(await t.claim('1.1.1.1', 'a@x', 0), 0);
    assert.equal(await t.claim('1.1.1.1', 'a@x', 0), 1000, 'the third attempt waits');
    assert.equal(await t.claim('1.1.1.1', 'a@x', 400), 600, 'a refused attempt does not count');
    assert.equal(await t.claim('2.2.2.2', 'a@x', 0), 0, 'another IP is not locked out');
    assert.equal(await t.claim('1.1.1.1', 'a@x', 1000), 0);
    assert.equal(await t.claim('1.1.1.1', 'a@x', 1000), 2000, 'the wait doubles');
    await t.recordSuccess('1.1.1.1', 'a@x');
    assert.equal(await t.claim('1.1.1.1', 'a@x', 2000), 0);
    assert.equal(await t.claim('1.1.1.1', 'a@x', 2000), 0);
  });

  test('an attempt counts when it starts: parallel attempts beyond the free ones wait', async () => {
    const t = new MemoryLoginThrottle(pairOnly(3));
    const waits = await Promise.all(Array.from({ length: 8 }, () => t.claim('1.1.1.1', 'a@x', 0)));
    assert.deepEqual(waits, [0, 0, 0, 1000, 1000, 1000, 1000, 1000]);
  });
});

describe('configuration', () => {
  test('defaults are the embedded ones', () => {
    const c = loadConfig({});
    assert.deepEqual(c.database, { dialect: 'sqlite', path: './data/bets.db' });
    assert.equal(c.port, 3000);
    assert.equal(c.publicUrl, 'http://localhost:3000');
    assert.equal(c.webUrl, 'http://localhost:3000/app/');
    assert.equal(c.prices.provider, 'simulated');
    assert.equal(c.rateLimits.enabled, true);
    assert.equal(c.workers.settlementIntervalMs, 60_000);
    assert.deepEqual(c.hashQueue, { maxWaiting: 16, maxWaitMs: 1000, perClient: 4, loginReserve: 4 });
    assert.deepEqual(c.accountThrottle, { failuresBeforeDelay: 20, maxDelayMs: 60_000, passwordChecksPerHour: 10 });
  });

  test('the hash queue and the account ceiling are settings', () => {
    const c = loadConfig({
      HASH_QUEUE_MAX: '500',
      HASH_QUEUE_WAIT_MS: '5000',
      HASH_QUEUE_PER_CLIENT: '100',
      ACCOUNT_FAILURES_BEFORE_DELAY: '50',
      ACCOUNT_MAX_DELAY_SECONDS: '30',
      HASH_QUEUE_LOGIN_RESERVE: '40',
      ACCOUNT_PASSWORD_CHECKS_PER_HOUR: '3',
    });
    assert.deepEqual(c.hashQueue, { maxWaiting: 500, maxWaitMs: 5000, perClient: 100, loginReserve: 40 });
    assert.deepEqual(c.accountThrottle, { failuresBeforeDelay: 50, maxDelayMs: 30_000, passwordChecksPerHour: 3 });
    assert.throws(() => loadConfig({ HASH_QUEUE_PER_CLIENT: '0' }), /HASH_QUEUE_PER_CLIENT must be between/);
    assert.throws(() => loadConfig({ ACCOUNT_MAX_DELAY_SECONDS: '7200' }), /ACCOUNT_MAX_DELAY_SECONDS must be between/);
    // Other work keeps at least one place of the queue's HASH_CONCURRENCY + HASH_QUEUE_MAX.
    assert.throws(() => loadConfig({ HASH_QUEUE_LOGIN_RESERVE: '18' }), /HASH_QUEUE_LOGIN_RESERVE must be between 0 and 17/);
    assert.equal(loadConfig({ HASH_CONCURRENCY: '1', HASH_QUEUE_MAX: '2' }).hashQueue.loginReserve, 2, 'the default leaves other work a place');
    assert.throws(() => loadConfig({ ACCOUNT_PASSWORD_CHECKS_PER_HOUR: '0' }), /ACCOUNT_PASSWORD_CHECKS_PER_HOUR must be between/);
  });

  test('bad values fail fast with a clear message', () => {
    assert.throws(() => loadConfig({ PORT: 'abc' }), ConfigError);
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /JWT_SECRET must be set/);
    assert.throws(() => loadConfig({ PRICE_PROVIDER: 'yahoo' }), /PRICE_PROVIDER/);
    assert.throws(() => loadConfig({ RATE_LIMITS: 'maybe' }), /RATE_LIMITS/);
    assert.throws(() => loadConfig({ JWT_SECRET: 'short' }), /at least 32/);
    assert.throws(() => loadConfig({ SETTLEMENT_INTERVAL_SECONDS: '0' }), /SETTLEMENT_INTERVAL_SECONDS must be between 1 and 3600/);
    assert.throws(() => loadConfig({ SETTLEMENT_INTERVAL_SECONDS: '1.5' }), /SETTLEMENT_INTERVAL_SECONDS must be an integer/);
    assert.equal(loadConfig({ SETTLEMENT_INTERVAL_SECONDS: '5' }).workers.settlementIntervalMs, 5000);
    // The outside services' choices are tested in test/unit/production-choices.test.ts.
    const simulated = { MAIL_TRANSPORT: 'log', PAYMENTS: 'local', CHAT_TRANSPORT: 'log', PRICE_PROVIDER: 'simulated' };
    assert.doesNotThrow(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), ...simulated }));
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, { dialect: 'sqlite', path: ':memory:' });
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database.dialect, 'postgres');
  });

  test('loopback origins are one site', () => {
    const o = originsOf([new URL('http://localhost:3000')]);
    for (const x of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) assert.ok(o.includes(x), x);
    assert.ok(!o.includes('http://localhost:4000'));
    assert.deepEqual(originsOf([new URL('https://bets.example/app/')]), ['https://bets.example']);
  });

  test('cross-site detection', () => {
    const trusted = new Set(['http://localhost:3000']);
    assert.equal(isCrossSite({}, trusted), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:3000' }, trusted), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'cross-site' }, trusted), true);
    assert.equal(isCrossSite({ origin: 'https://evil.example' }, trusted), true);
    assert.equal(isCrossSite({ origin: 'null' }, trusted), true);
    // A same-origin form post when the page's referrer policy is no-referrer.
    assert.equal(isCrossSite({ 'sec-fetch-site': 'same-origin', origin: 'null' }, trusted), false);
    assert.equal(isCrossSite({ 'sec-fetch-site': 'same-site', origin: 'null' }, trusted), true);
  });
});
