// Sessions are kept briefly in each instance; ending one ends it everywhere:
// the instance that ended it refuses it at once, another instance as soon as
// the revocation published on Redis has arrived there (waited on, not slept).
// Without Redis the cache's lifetime (2 s by the service's clock) is the bound.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import { NO_BUS_SESSION_CACHE_MS, type Revocation } from '../../src/services/sessions.js';
import { cookieFrom, PASSWORD, registerAndLogInThroughApi } from '../helpers/app.js';
import { forEachDialect, openTestDatabase, REDIS_URL, type TestDatabase, testRedis } from '../helpers/db.js';

forEachDialect('sessions across instances', (dialect) => {
  let database: TestDatabase;
  const clock = new FakeClock();
  const apps: FastifyInstance[] = [];
  const clients: Redis[] = [];

  before(async () => {
    database = await openTestDatabase(dialect, { migrated: true });
  });
  after(async () => {
    for (const app of apps) await app.close();
    for (const c of clients) c.disconnect();
    await database.close();
  });

  async function instance(redis: boolean): Promise<FastifyInstance> {
    const client = redis && REDIS_URL ? testRedis() : null;
    if (client) clients.push(client);
    const app = await buildApp(testConfig(), { logger: false, database, clock, redis: client });
    apps.push(app);
    return app;
  }

  const me = (app: FastifyInstance, cookie: string) => app.inject({ method: 'GET', url: '/me', headers: { cookie } }).then((r) => r.statusCode);

  /** Resolves when a revocation of this session (or of its user) has arrived at app. */
  const arrival = (app: FastifyInstance, match: (r: Revocation) => boolean) =>
    new Promise<void>((resolve) => app.ctx.sessions.onDelivered((r) => match(r) && resolve()));

  describe('with Redis', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set: the Redis-backed revocation is not run' }, () => {
    test('logout on one instance: refused there at once, on the other once the message arrives', async () => {
      const a = await instance(true);
      const b = await instance(true);
      const u = await registerAndLogInThroughApi(a);
      // Both instances have seen the session live: it is cached on each.
      assert.equal(await me(a, u.cookie), 200);
      assert.equal(await me(b, u.cookie), 200);
      const sessionId = (await database.db.selectFrom('sessions').select('id').where('user_id', '=', u.id).executeTakeFirstOrThrow()).id;
      const delivered = arrival(b, (r) => 'sessionId' in r && r.sessionId === sessionId);
      assert.equal((await a.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie } })).statusCode, 200);
      assert.equal(await me(a, u.cookie), 401);
      await delivered;
      assert.equal(await me(b, u.cookie), 401);
    });

    test("a password change ends the user's other sessions on every instance; the one that changed it stays", async () => {
      const a = await instance(true);
      const b = await instance(true);
      const u = await registerAndLogInThroughApi(a);
      const login = await a.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: PASSWORD } });
      const other = cookieFrom(login);
      assert.equal(await me(b, u.cookie), 200);
      assert.equal(await me(b, other), 200);
      const delivered = arrival(b, (r) => 'userId' in r && r.userId === u.id);
      const changed = await a.inject({
        method: 'POST',
        url: '/me/password',
        headers: { cookie: u.cookie },
        payload: { current_password: PASSWORD, new_password: 'another perfectly fine passphrase' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      await delivered;
      assert.equal(await me(b, other), 401);
      assert.equal(await me(b, u.cookie), 200);
    });
  });

  test('without Redis another instance accepts an ended session for at most the cache lifetime', async () => {
    const a = await instance(false);
    const b = await instance(false);
    const u = await registerAndLogInThroughApi(a);
    assert.equal(await me(b, u.cookie), 200);
    assert.equal((await a.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie } })).statusCode, 200);
    assert.equal(await me(a, u.cookie), 401);
    clock.advance(NO_BUS_SESSION_CACHE_MS + 1);
    assert.equal(await me(b, u.cookie), 401);
  });
});
