// With Redis, login throttling, per-IP limits and per-account budgets are shared by every instance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import type { FastifyInstance } from 'fastify';
import { FakeClock } from '../../src/lib/clock.js';
import { openTestDatabase, REDIS_URL, type TestDatabase, testRedis } from '../helpers/db.js';
import { PASSWORD, uniqueName } from '../helpers/app.js';

const SKIP = REDIS_URL ? false : 'TEST_REDIS_URL is not set: Redis-backed limit tests skipped';

describe('limits shared through Redis by two instances', { skip: SKIP }, () => {
  let database: TestDatabase;
  let redis: Redis;
  let a: FastifyInstance;
  let b: FastifyInstance;
  before(async () => {
    database = await openTestDatabase('sqlite', { migrated: true });
    redis = testRedis();
    const config = testConfig({
      rateLimits: {
        enabled: true,
        authPerMinute: 1000,
        loginFailuresBeforeDelay: 2,
        publicPerMinute: 1000,
        writesPerMinute: 1000,
        mailPerClientPerHour: 1000,
      },
      accountThrottle: { ...testConfig().accountThrottle, passwordChecksPerHour: 2 },
    });
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

  test('failed logins on one instance throttle the same IP+account on the other', async () => {
    const username = uniqueName();
    const email = `${username}@x.test`;
    assert.equal((await a.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } })).statusCode, 201);
    const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const login = (app: FastifyInstance, password: string) =>
      app.inject({ method: 'POST', url: '/login', remoteAddress: ip, payload: { email, password } });
    assert.equal((await login(a, 'wrong password number one')).statusCode, 401);
    assert.equal((await login(b, 'wrong password number two')).statusCode, 401);
    const blocked = await login(a, PASSWORD);
    assert.equal(blocked.statusCode, 429);
    assert.equal((await login(b, PASSWORD)).statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
  });

  test('password confirmations spend one hourly budget per account on every instance', async () => {
    const username = uniqueName();
    const email = `${username}@x.test`;
    assert.equal((await a.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } })).statusCode, 201);
    const login = await a.inject({ method: 'POST', url: '/login', payload: { email, password: PASSWORD } });
    assert.equal(login.statusCode, 200);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const change = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/me/password',
        headers: { cookie },
        payload: { current_password: PASSWORD, new_password: PASSWORD },
      });
    assert.equal((await change(a)).statusCode, 200);
    assert.equal((await change(b)).statusCode, 200);
    const spent = await change(a);
    assert.equal(spent.statusCode, 429);
    assert.ok(Number(spent.headers['retry-after']) > 0);
    assert.equal((await change(b)).statusCode, 429);
  });

  test('changes of address to one recipient are counted on every instance', async () => {
    const victim = `${uniqueName()}@victim.test`;
    const perRecipient = testConfig().mail.perAddressPerHour;
    const statuses: number[] = [];
    for (let i = 0; i <= perRecipient; i++) {
      const username = uniqueName();
      const email = `${username}@x.test`;
      assert.equal((await a.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } })).statusCode, 201);
      const login = await a.inject({ method: 'POST', url: '/login', payload: { email, password: PASSWORD } });
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      const app = i % 2 ? b : a;
      const res = await app.inject({
        method: 'POST',
        url: '/me/email',
        headers: { cookie },
        remoteAddress: `10.8.${i}.1`,
        payload: { new_email: victim, password: PASSWORD },
      });
      statuses.push(res.statusCode);
    }
    assert.deepEqual(statuses, [...Array.from({ length: perRecipient }, () => 202), 429]);
  });
});
