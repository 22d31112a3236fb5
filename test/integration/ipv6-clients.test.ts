// Per-address limits count an IPv6 client by its network (IPV6_PREFIX_LENGTH,
// a /64 by default), not by each of its 2^64 addresses, and an IPv4-mapped
// IPv6 address as the IPv4 client it is: the request rate limits (in memory
// and through Redis), the login throttle and the hash queue's share.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, uniqueName } from '../helpers/app.js';
import { forEachDialect, openTestDatabase, REDIS_URL, type TestDatabase, testRedis } from '../helpers/db.js';
import { GatedHashing, settled } from '../helpers/fake-hashing.js';

const PUBLIC_PER_MINUTE = 3;
const FREE_FAILURES = 2;
const PER_CLIENT = 2;

const config = () => ({
  rateLimits: {
    ...testConfig().rateLimits,
    enabled: true,
    publicPerMinute: PUBLIC_PER_MINUTE,
    authPerMinute: 100_000,
    loginFailuresBeforeDelay: FREE_FAILURES,
  },
  hashConcurrency: PER_CLIENT + 1,
  hashQueue: { maxWaiting: 100, maxWaitMs: 60_000, perClient: PER_CLIENT, loginReserve: 0 },
});

/** A fresh /64 (or IPv4 address) per test, so tests sharing an app do not share budgets. */
let net = 0;
const fresh64 = () => `2001:db8:${(++net).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;

function publicReadLimits(app: () => FastifyInstance): void {
  const read = (remoteAddress: string) => app().inject({ method: 'GET', url: '/bet/999999999', remoteAddress });

  test('the addresses of one IPv6 /64 share one budget; another /64 has its own', async () => {
    const prefix = fresh64();
    for (let i = 1; i <= PUBLIC_PER_MINUTE; i++) assert.equal((await read(`${prefix}::${i}`)).statusCode, 404);
    const refused = await read(`${prefix}:ffff:ffff:ffff:fff0`);
    assert.equal(refused.statusCode, 429, 'a new address in the same /64');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal((await read(`${fresh64()}::1`)).statusCode, 404, 'another /64');
  });

  test('an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
    const v4 = `10.${++net % 250}.${Math.floor(Math.random() * 250)}.7`;
    assert.equal((await read(v4)).statusCode, 404);
    assert.equal((await read(`::ffff:${v4}`)).statusCode, 404);
    assert.equal((await read(v4)).statusCode, 404);
    assert.equal((await read(`::ffff:${v4}`)).statusCode, 429);
    assert.equal((await read(`::ffff:${v4.replace(/\.7$/, '.8')}`)).statusCode, 404, 'the next IPv4 address is another client');
  });
}

forEachDialect('IPv6 clients', (dialect) => {
  let t: TestApp;
  let hashing: GatedHashing;
  before(async () => {
    hashing = new GatedHashing();
    t = await createTestApp(dialect, { config: config(), deps: { passwordHashing: hashing } });
  });
  after(() => t.close());

  publicReadLimits(() => t.app);

  test('failed logins from one /64 throttle the account for every address of it', async () => {
    const u = await registerAndLogin(t.app);
    const prefix = fresh64();
    const login = (password: string, remoteAddress: string) =>
      t.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password }, remoteAddress });
    for (let i = 1; i <= FREE_FAILURES; i++) assert.equal((await login(`wrong guess ${i} at it`, `${prefix}::${i}`)).statusCode, 401);
    assert.equal((await login(PASSWORD, `${prefix}::99`)).statusCode, 429, 'another address of the /64 waits');
    assert.equal((await login(PASSWORD, `${fresh64()}::1`)).statusCode, 200, 'the owner on another network is not locked out');
  });

  test("the hash queue's share per client is per /64", async () => {
    const prefix = fresh64();
    const register = (remoteAddress: string) => {
      const username = uniqueName();
      return t.app.inject({
        method: 'POST',
        url: '/register',
        payload: { username, email: `${username}@x.test`, password: PASSWORD },
        remoteAddress,
      });
    };
    hashing.hold();
    try {
      const held = Array.from({ length: PER_CLIENT }, (_, i) => register(`${prefix}::${i + 1}`));
      await settled('the share is taken', () => hashing.inFlight === PER_CLIENT);
      assert.equal((await register(`${prefix}::abcd`)).statusCode, 429, 'a new address in the same /64');
      const elsewhere = register(`${fresh64()}::1`);
      await settled('another network hashes', () => hashing.inFlight === PER_CLIENT + 1);
      hashing.release();
      for (const r of await Promise.all([...held, elsewhere])) assert.equal(r.statusCode, 201);
    } finally {
      hashing.release();
    }
  });
});

describe('IPv6 clients with limits shared through Redis', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, () => {
  let database: TestDatabase;
  let redis: Redis;
  let app: FastifyInstance;
  before(async () => {
    database = await openTestDatabase('sqlite', { migrated: true });
    redis = testRedis();
    app = await buildApp(testConfig(config()), { logger: false, database, redis, clock: new FakeClock() });
  });
  after(async () => {
    await app.close();
    redis.disconnect();
    await database.close();
  });

  publicReadLimits(() => app);
});
