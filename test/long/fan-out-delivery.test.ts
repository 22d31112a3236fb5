// A trader with ten thousand linked followers opens a bet: the outbox
// delivers exactly one notice to each of them (long: PostgreSQL records each
// send in its own transaction, tens of seconds for all).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { usernameKey } from '../../src/domain/accounts.js';
import type { ChatTransport } from '../../src/providers/chat/types.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { chatOutbox } from '../helpers/messaging.js';

const FOLLOWERS = 10_000;

forEachDialect('fan-out delivery', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test(`an opening reaches each of ${FOLLOWERS} linked followers exactly once`, async () => {
    const trader = await registerAndLogin(t.app, 'star');
    const now = t.clock.now();
    for (let i = 0; i < FOLLOWERS; i += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, FOLLOWERS - i) }, (_, j) => {
        const username = `fan_${dialect}_${i + j}`;
        return { username, username_lower: usernameKey(username), email: `${username}@example.test`, password_hash: 'x', created_at: now };
      });
      const ids = (await t.ctx.db.insertInto('users').values(rows).returning('id').execute()).map((r) => r.id);
      await t.ctx.db
        .insertInto('follows')
        .values(ids.map((id) => ({ follower_id: id, followed_id: trader.id, created_at: now })))
        .execute();
      await t.ctx.db
        .insertInto('chat_links')
        .values(ids.map((id) => ({ user_id: id, transport: t.ctx.chatTransport.name, chat_id: `chat-${id}`, linked_at: now })))
        .execute();
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: trader.cookie },
      payload: { ticker: 'MSFT', direction: 'SHORT' },
    });
    assert.equal(res.statusCode, 200, res.body);

    const sent: string[] = [];
    const transport: ChatTransport = {
      name: t.ctx.chatTransport.name,
      send: async (n) => {
        sent.push(n.chatId);
        return { ok: true };
      },
    };
    const worker = chatOutbox(t, transport, { batchSize: 500 });
    while ((await worker.runOnce()) > 0);
    assert.equal(sent.length, FOLLOWERS);
    assert.equal(new Set(sent).size, FOLLOWERS, 'one delivery each');
    const rows = await t.ctx.db.selectFrom('notifications').select('status').where('bet_id', '=', res.json().bet_id).execute();
    assert.equal(rows.length, FOLLOWERS);
    assert.ok(rows.every((r) => r.status === 'sent'));
  });
});
