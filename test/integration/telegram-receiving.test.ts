// How updates reach the service with workers on: long polling without a
// webhook secret, setWebhook at start with one (https public URL).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, registerAndLogin } from '../helpers/app.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import { isLinked, linkCode, textUpdate } from '../helpers/messaging.js';

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

test('without a webhook secret the bot long-polls; the link reply goes out through the running outbox worker', async () => {
  const bot = await new FakeTelegram().start();
  const t = await createTestApp('sqlite', {
    config: {
      workers: { enabled: true, settlementIntervalMs: 60_000 },
      telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: null, apiUrl: bot.url },
    },
  });
  try {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    bot.queueUpdate(textUpdate(8_000_001, `/start ${code}`));
    await until('linked', () => isLinked(t, u));
    await until('reply sent', async () => bot.sent(8_000_001).length === 1);
    assert.match(String(bot.sent(8_000_001)[0]!.payload.text), /Linked to/);
    assert.ok(bot.calls.some((c) => c.method === 'getUpdates'));
    assert.ok(!bot.calls.some((c) => c.method === 'setWebhook'));
  } finally {
    await t.close();
    await bot.stop();
  }
});

test('with a webhook secret and an https public URL the webhook is registered at start, with the secret', async () => {
  const bot = await new FakeTelegram().start();
  const t = await createTestApp('sqlite', {
    config: {
      publicUrl: 'https://bets.example',
      workers: { enabled: true, settlementIntervalMs: 60_000 },
      telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: 'the-secret', apiUrl: bot.url },
    },
  });
  try {
    const set = bot.calls.filter((c) => c.method === 'setWebhook');
    assert.equal(set.length, 1);
    assert.equal(set[0]!.payload.url, 'https://bets.example/chat/webhook');
    assert.equal(set[0]!.payload.secret_token, 'the-secret');
    assert.ok(!bot.calls.some((c) => c.method === 'getUpdates'));
  } finally {
    await t.close();
    await bot.stop();
  }
});
