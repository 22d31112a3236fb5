// A password reset on one instance ends the account's sessions on every
// instance, through the same Redis revocation as logout and a password change
// (waited on, not slept).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { FakeClock } from '../../src/lib/clock.js';
import type { Revocation } from '../../src/services/sessions.js';
import { registerAndLogInThroughApi } from '../helpers/app.js';
import { forEachDialect, openTestDatabase, REDIS_URL, type TestDatabase, testRedis } from '../helpers/db.js';
import { TestSmtpServer, tokenOf } from '../helpers/smtp.js';

forEachDialect('password reset across instances', (dialect) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  const clock = new FakeClock();
  const apps: FastifyInstance[] = [];
  const clients: Redis[] = [];

  before(async () => {
    database = await openTestDatabase(dialect, { migrated: true });
    smtp = await new TestSmtpServer().start();
  });
  after(async () => {
    for (const app of apps) await app.close();
    for (const c of clients) c.disconnect();
    await database.close();
    await smtp.stop();
  });

  async function instance(): Promise<FastifyInstance> {
    const client = testRedis();
    clients.push(client);
    const app = await buildApp(testConfig({ mail: { smtpUrl: smtp.url, from: 'no-reply@example.test', perAddressPerHour: 5 } }), {
      logger: false,
      database,
      clock,
      redis: client,
    });
    apps.push(app);
    return app;
  }

  describe('with Redis', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set: the Redis-backed revocation is not run' }, () => {
    test('a reset through one instance ends every session of the account on the other', async () => {
      const a = await instance();
      const b = await instance();
      const u = await registerAndLogInThroughApi(a);
      const me = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } }).then((r) => r.statusCode);
      assert.equal(await me(b), 200, 'cached as live on b');
      assert.equal((await a.inject({ method: 'POST', url: '/password/forgot', payload: { email: u.email } })).statusCode, 202);
      while ((await a.ctx.outbox.runOnce('email')) > 0);
      const mail = smtp.to(u.email).find((m) => /Reset your password/.test(m.subject));
      assert.ok(mail);
      const link = mail.links.find((l) => l.includes('reset-password?token='))!;
      const delivered = new Promise<void>((resolve) =>
        b.ctx.sessions.onDelivered((r: Revocation) => 'userId' in r && r.userId === u.id && resolve()),
      );
      const reset = await a.inject({
        method: 'POST',
        url: '/password/reset',
        payload: { token: tokenOf(link), new_password: 'another perfectly fine passphrase' },
      });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(await me(a), 401);
      await delivered;
      assert.equal(await me(b), 401);
    });
  });
});
