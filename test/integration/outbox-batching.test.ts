// The outbox renews a claim only once half its lease has passed: a notice
// costs one durable commit (its record), not two (renewal and record), and
// each is recorded as soon as it is sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { enqueueNotifications } from '../../src/repositories/notifications.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { chatOutbox } from '../helpers/messaging.js';

forEachDialect('outbox batching', (dialect) => {
  let t: TestApp;
  let log: string[] | null = null;
  before(async () => {
    t = await createTestApp(dialect, { onQuery: (s) => log?.push(s) });
  });
  after(() => t.close());

  test('a batch of ten replies is sent once each, each recorded once, with no renewal while the lease is young', async () => {
    const u = await registerAndLogin(t.app, 'ob');
    const chatId = `chat-${u.id}`;
    const texts = Array.from({ length: 10 }, (_, i) => `reply ${u.id}/${i}`);
    await enqueueNotifications(
      t.ctx.db,
      texts.map((text) => ({ user_id: u.id, transport: t.ctx.chatTransport.name, chat_id: chatId, kind: 'chat_reply' as const, text, bet_id: null })),
      t.clock.now(),
    );
    const sent: string[] = [];
    const worker = chatOutbox(
      t,
      {
        name: t.ctx.chatTransport.name,
        send: async (n) => {
          if (n.chatId === chatId) sent.push(n.text);
          return { ok: true };
        },
      },
      { batchSize: 20 },
    );
    const statements: string[] = [];
    log = statements;
    try {
      while ((await worker.runOnce()) > 0);
    } finally {
      log = null;
    }
    assert.deepEqual(sent.sort(), [...texts].sort());
    const rows = await t.ctx.db.selectFrom('notifications').select(['status', 'attempts']).where('chat_id', '=', chatId).execute();
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      texts.map(() => ['sent', 1]),
    );
    const marks = statements.filter((s) => /^update "notifications" set "status" = /i.test(s));
    assert.equal(marks.length, 10, `one record a delivery:\n${marks.join('\n')}`);
    assert.equal(statements.filter((s) => /^update "notifications" set "claimed_until"/i.test(s)).length, 0, 'no renewal while the lease is young');
  });
});
