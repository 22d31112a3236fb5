// The context alone, without Fastify (createContext): services and jobs run
// on it as they do inside the app, and close() releases what it opened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/create-context.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { FakeClock } from '../../src/lib/clock.js';
import { enqueueMail } from '../../src/repositories/notifications.js';
import { forEachDialect, openTestDatabase } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('a context without HTTP', (dialect) => {
  test('migrates, runs a job and the outbox on it, and closes', async () => {
    const database = await openTestDatabase(dialect);
    try {
      const clock = new FakeClock();
      const ctx = await createContext(testConfig(), { database, clock, prices: new FakePriceProvider() });
      try {
        assert.deepEqual(await new PeriodicJob(settlementJob(ctx, ctx.log)).runOnce(), { settled: 0, deferred: 0 });
        // A mail to an address without an account is dropped by the email channel's own rule, never sent.
        await enqueueMail(ctx.db, { userId: null, to: 'nobody@example.test', kind: 'password_reset', text: 'reset' }, clock.now());
        assert.equal(await ctx.outbox.runOnce('email'), 1);
        const row = await ctx.db.selectFrom('notifications').select(['status', 'email', 'chat_id']).executeTakeFirstOrThrow();
        assert.deepEqual(row, { status: 'dropped', email: 'nobody@example.test', chat_id: null });
      } finally {
        await ctx.close();
      }
    } finally {
      await database.close();
    }
  });
});
