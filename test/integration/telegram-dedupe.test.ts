// Telegram delivers an update again when it did not see our answer (webhook
// retries) or when a poller restarts: the same update_id must act once, even
// when the copies arrive together.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UPDATE_RETENTION_MS } from '../../src/services/chat.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import { newChatId } from '../helpers/bot-notices.js';
import { callbackUpdate, linkCode, postUpdate, textUpdate, WEBHOOK_SECRET } from '../helpers/messaging.js';

forEachDialect('Telegram updates act once', (dialect) => {
  let t: TestApp;
  let bot: FakeTelegram;
  before(async () => {
    bot = await new FakeTelegram().start();
    t = await createTestApp(dialect, {
      config: {
        capacities: { baseBets: 3, baseFollows: 5 },
        telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: WEBHOOK_SECRET, apiUrl: bot.url },
      },
    });
  });
  after(async () => {
    await t.close();
    await bot.stop();
  });

  async function linked(): Promise<{ user: TestUser; chat: number }> {
    const user = await registerAndLogin(t.app, 'tap');
    const chat = newChatId();
    const { code } = await linkCode(t, user);
    assert.equal((await postUpdate(t, textUpdate(chat, `/start ${code}`))).statusCode, 200);
    return { user, chat };
  }

  async function sourceBet(): Promise<number> {
    const trader = await registerAndLogin(t.app, 'src');
    const res = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: trader.cookie },
      payload: { ticker: 'AAPL', direction: 'LONG' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }

  const betsOf = async (userId: number) => (await t.ctx.db.selectFrom('bets').select('id').where('user_id', '=', userId).execute()).length;
  const repliesTo = async (chat: number) =>
    (
      await t.ctx.db
        .selectFrom('notifications')
        .select('text')
        .where('chat_id', '=', String(chat))
        .where('kind', '=', 'chat_reply')
        .orderBy('id')
        .execute()
    ).map((r) => r.text);

  test('a Tail tap delivered twice opens one bet, says so once, and answers both deliveries alike', async () => {
    const { user, chat } = await linked();
    const tap = callbackUpdate(chat, `tail:${await sourceBet()}`);
    const first = await postUpdate(t, tap);
    const second = await postUpdate(t, tap);
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 200);
    assert.equal(await betsOf(user.id), 1);
    assert.match(first.json().text, /^Tailed: Opened LONG AAPL/);
    assert.deepEqual(second.json(), first.json());
    const replies = await repliesTo(chat);
    assert.equal(replies.filter((r) => r.startsWith('Tailed')).length, 1);
  });

  test('copies of one tap arriving together open one bet', async () => {
    const { user, chat } = await linked();
    const tap = callbackUpdate(chat, `fade:${await sourceBet()}`);
    const answers = await Promise.all(Array.from({ length: 6 }, () => postUpdate(t, tap)));
    for (const a of answers) {
      assert.equal(a.statusCode, 200);
      assert.match(a.json().text, /^Faded: Opened SHORT AAPL/);
    }
    assert.equal(await betsOf(user.id), 1);
    assert.equal((await repliesTo(chat)).filter((r) => r.startsWith('Faded')).length, 1);
  });

  test('two taps are two updates: each acts, up to the capacity; a refusal redelivered is said once', async () => {
    const { user, chat } = await linked();
    const source = await sourceBet();
    for (let i = 0; i < 3; i++) assert.equal((await postUpdate(t, callbackUpdate(chat, `tail:${source}`))).statusCode, 200);
    assert.equal(await betsOf(user.id), 3);
    const refused = callbackUpdate(chat, `tail:${source}`);
    const answers = await Promise.all([postUpdate(t, refused), postUpdate(t, refused), postUpdate(t, refused)]);
    for (const a of answers) assert.equal(a.json().text, 'Not opened: you have reached your limit of 3 open bets.');
    assert.equal(await betsOf(user.id), 3);
    assert.equal((await repliesTo(chat)).filter((r) => r.startsWith('Not opened')).length, 1);
  });

  test('a /start with a link code delivered twice links once and replies once (no "unknown code" after it)', async () => {
    const user = await registerAndLogin(t.app, 'link');
    const chat = newChatId();
    const { code } = await linkCode(t, user);
    const update = textUpdate(chat, `/start ${code}`);
    await Promise.all([postUpdate(t, update), postUpdate(t, update)]);
    await postUpdate(t, update);
    const replies = await repliesTo(chat);
    assert.equal(replies.length, 1, JSON.stringify(replies));
    assert.match(replies[0]!, /^Linked to /);
  });

  test('records older than the retention are pruned when updates are handled', async () => {
    const now = t.clock.now();
    await t.ctx.db
      .insertInto('chat_updates')
      .values({ transport: 'telegram', update_key: 'old-one', received_at: now - UPDATE_RETENTION_MS - 1, answer: null })
      .execute();
    const chat = newChatId();
    const update = textUpdate(chat, 'hello');
    assert.equal((await postUpdate(t, update)).statusCode, 200);
    const keys = (await t.ctx.db.selectFrom('chat_updates').select('update_key').execute()).map((r) => r.update_key);
    assert.ok(!keys.includes('old-one'), 'the old record is gone');
    assert.ok(keys.includes(String(update.update_id)), 'the new one is kept');
  });
});
