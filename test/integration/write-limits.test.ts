// Authenticated writes are limited per user and route (issue 22, finding 6):
// one user flooding writes (each fanning notices out to followers) gets 429
// with Retry-After, whatever address it comes from; other users are not slowed.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { type Config, testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { cookieFrom, createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { forEachDialect, openTestDatabase, REDIS_URL, type TestDatabase, testRedis } from '../helpers/db.js';

const limits = (writesPerMinute: number): Partial<Config> => ({
  rateLimits: { ...testConfig().rateLimits, enabled: true, writesPerMinute },
});

function assertLimited(res: LightMyRequestResponse, what: string): void {
  assert.equal(res.statusCode, 429, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After ${res.headers['retry-after']}`);
}

forEachDialect('per-user limits on authenticated writes', (dialect) => {
  const MAX = 3;
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: limits(MAX) });
  });
  after(() => t.close());

  const linkCode = (u: TestUser, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/chat/link-code', remoteAddress, headers: { cookie: u.cookie } });

  test('the write after the limit is 429 in the error shape with Retry-After; another user from the same address is not limited', async () => {
    const [a, b] = [await registerAndLogin(t.app, 'wl'), await registerAndLogin(t.app, 'wl')];
    for (let i = 0; i < MAX; i++) {
      const res = await linkCode(a);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-ratelimit-limit'], String(MAX));
      assert.equal(res.headers['x-ratelimit-remaining'], String(MAX - i - 1));
    }
    const over = await linkCode(a);
    assertLimited(over, 'the fourth write');
    assert.deepEqual(Object.keys(over.json()), ['error']);
    assert.equal(typeof over.json().error, 'string');
    // Counted per user, not per address: B shares A's address, A moves to another.
    assert.equal((await linkCode(b)).statusCode, 200);
    assertLimited(await linkCode(a, '203.0.113.9'), 'the same user from another address');
    // Each route counts apart: A can still act elsewhere.
    assert.equal((await t.app.inject({ method: 'POST', url: '/chat/unlink', headers: { cookie: a.cookie } })).statusCode, 200);
  });

  test('without a session the answer is still 401 and counts for nobody', async () => {
    for (let i = 0; i < MAX + 2; i++) {
      assert.equal((await t.app.inject({ method: 'POST', url: '/bet/open', payload: { ticker: 'AAPL', direction: 'LONG' } })).statusCode, 401);
    }
    const u = await registerAndLogin(t.app, 'wl');
    const res = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: u.cookie },
      payload: { ticker: 'AAPL', direction: 'LONG' },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('every operation that needs a session and changes something is limited, refused requests included', async () => {
    const one = await createTestApp(dialect, { config: limits(1) });
    try {
      const doc = (await one.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      const writes: Array<{ method: 'POST' | 'DELETE' | 'PUT' | 'PATCH'; url: string }> = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (!['post', 'put', 'patch', 'delete'].includes(method) || !op.security?.length) continue;
          // Ids nobody has and bodies that fail validation: nothing changes, and the second try is still refused.
          const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name.endsWith('_id') ? '999999' : 'nonexistent'));
          writes.push({ method: method.toUpperCase() as 'POST', url });
        }
      }
      for (const expected of ['/bet/open', '/bet/close', '/follow', '/api/pay/checkout', '/chat/link-code', '/me/password']) {
        assert.ok(
          writes.some((w) => w.url === expected),
          `${expected} is among the authenticated writes`,
        );
      }
      const [a, b] = [await registerAndLogin(one.app, 'wl'), await registerAndLogin(one.app, 'wl')];
      const send = (u: TestUser, w: (typeof writes)[number]) =>
        one.app.inject({ method: w.method, url: w.url, headers: { cookie: u.cookie }, payload: { unexpected: true } });
      for (const w of writes) {
        const first = await send(a, w);
        assert.notEqual(first.statusCode, 429, `${w.method} ${w.url}: first try`);
        assertLimited(await send(a, w), `${w.method} ${w.url}: second try`);
      }
      for (const w of writes) assert.notEqual((await send(b, w)).statusCode, 429, `${w.method} ${w.url} for another user`);
    } finally {
      await one.close();
    }
  });

  test('RATE_LIMITS=off turns the write limits off', async () => {
    const off = await createTestApp(dialect, { config: { rateLimits: { ...testConfig().rateLimits, enabled: false, writesPerMinute: 1 } } });
    try {
      const u = await registerAndLogin(off.app, 'wl');
      for (let i = 0; i < 3; i++) {
        const res = await off.app.inject({ method: 'POST', url: '/chat/link-code', headers: { cookie: u.cookie } });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    } finally {
      await off.close();
    }
  });
});

describe('write limits shared through Redis by two instances', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, () => {
  let database: TestDatabase;
  let redis: Redis;
  let a: FastifyInstance;
  let b: FastifyInstance;
  before(async () => {
    database = await openTestDatabase('sqlite', { migrated: true });
    redis = testRedis();
    const config = testConfig(limits(2));
    const clock = new FakeClock();
    a = await buildApp(config, { logger: false, database, redis, clock });
    b = await buildApp(config, { logger: false, database, redis, clock });
  });
  after(async () => {
    await a.close();
    await b.close();
    redis.disconnect();
    await database.close();
  });

  test('writes on either instance count against one limit per user', async () => {
    // Signed up from an address of its own: other suites sharing this Redis count their logins per address.
    const remoteAddress = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const username = uniqueName('wl');
    const email = `${username}@example.test`;
    const reg = await a.inject({ method: 'POST', url: '/register', remoteAddress, payload: { username, email, password: PASSWORD } });
    assert.equal(reg.statusCode, 201, reg.body);
    const login = await a.inject({ method: 'POST', url: '/login', remoteAddress, payload: { email, password: PASSWORD } });
    assert.equal(login.statusCode, 200, login.body);
    const user = { id: login.json().id as number, cookie: cookieFrom(login) };
    // A fresh database reuses user ids: forget counts an earlier run left for this one.
    const stale = await redis.keys(`rate-limit:*user:${user.id}`);
    if (stale.length > 0) await redis.del(...stale);
    const write = (app: FastifyInstance) => app.inject({ method: 'POST', url: '/chat/link-code', headers: { cookie: user.cookie } });
    assert.equal((await write(a)).statusCode, 200);
    assert.equal((await write(b)).statusCode, 200);
    assertLimited(await write(a), 'the third write, on the first instance');
    assertLimited(await write(b), 'the fourth write, on the second instance');
  });
});
