import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_ATTEMPTS } from '../../src/domain/notifications.js';
import type { Outbox } from '../../src/jobs/outbox.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import {
  chatOutbox,
  drainOutbox,
  finishBet,
  follow,
  insertOpenBet,
  isLinked,
  linkCode,
  linkTelegram,
  postUpdate,
  textUpdate,
  WEBHOOK_SECRET,
} from '../helpers/messaging.js';

let nextChat = 5_000_000;
const newChatId = () => nextChat++;

forEachDialect('messaging over Telegram', (dialect) => {
  let t: TestApp;
  let bot: FakeTelegram;
  before(async () => {
    bot = await new FakeTelegram().start();
    t = await createTestApp(dialect, {
      config: {
        webUrl: 'https://web.example/app/',
        telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: WEBHOOK_SECRET, apiUrl: bot.url },
      },
    });
  });
  after(async () => {
    await t.close();
    await bot.stop();
  });

  const get = (url: string, cookie?: string) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const post = (url: string, cookie?: string) => t.app.inject({ method: 'POST', url, headers: cookie ? { cookie } : {} });
  const notices = async (cookie: string, query = '') => (await get(`/notifications${query}`, cookie)).json() as Array<Record<string, unknown>>;
  /** The user's queued deliveries to the chat, newest first (the app lists notices apart: test/integration/notices.test.ts). */
  const deliveries = (u: { id: number }) =>
    t.ctx.db
      .selectFrom('notifications')
      .select(['kind', 'bet_id', 'status'])
      .where('user_id', '=', u.id)
      .where('transport', '!=', 'email')
      .orderBy('id', 'desc')
      .execute();

  test('chat endpoints need the session: 401', async () => {
    for (const [method, url] of [
      ['GET', '/chat/status'],
      ['POST', '/chat/link-code'],
      ['POST', '/chat/unlink'],
      ['GET', '/notifications'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      assert.equal(res.statusCode, 401, url);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });

  test('link-code: a long random code and the bot deep link', async () => {
    const u = await registerAndLogin(t.app);
    const a = await linkCode(t, u);
    const b = await linkCode(t, u);
    assert.match(a.code, /^[A-Za-z0-9_-]{22,64}$/);
    assert.notEqual(a.code, b.code);
    assert.equal(a.deep_link, `https://t.me/paper_bot?start=${a.code}`);
    // Only a hash is stored.
    const stored = await t.ctx.db.selectFrom('chat_link_codes').selectAll().where('user_id', '=', u.id).execute();
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.code_hash, b.code);
  });

  test('link through the webhook: /start CODE links the chat and the bot answers in it', async () => {
    const u = await registerAndLogin(t.app);
    assert.equal(await isLinked(t, u), false);
    const chat = newChatId();
    const { code } = await linkCode(t, u);
    const res = await postUpdate(t, textUpdate(chat, `/start ${code}`));
    assert.equal(res.statusCode, 200);
    assert.equal(await isLinked(t, u), true);
    await drainOutbox(t);
    const replies = bot.sent(chat);
    assert.equal(replies.length, 1);
    assert.match(String(replies[0]!.payload.text), new RegExp(`Linked to ${u.username}`));
    assert.equal(replies[0]!.payload.parse_mode, 'HTML');
  });

  test('the code alone also links', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    await postUpdate(t, textUpdate(newChatId(), code));
    assert.equal(await isLinked(t, u), true);
  });

  test('a used code gets a polite reply and changes nothing', async () => {
    const owner = await registerAndLogin(t.app);
    const { code } = await linkCode(t, owner);
    const ownerChat = newChatId();
    const otherChat = newChatId();
    await postUpdate(t, textUpdate(ownerChat, `/start ${code}`));
    const again = await postUpdate(t, textUpdate(otherChat, `/start ${code}`));
    assert.equal(again.statusCode, 200);
    const link = await t.ctx.db.selectFrom('chat_links').selectAll().where('user_id', '=', owner.id).executeTakeFirstOrThrow();
    assert.equal(link.chat_id, String(ownerChat));
    await drainOutbox(t);
    assert.match(String(bot.sent(otherChat)[0]!.payload.text), /unknown, already used or expired/);
  });

  test('an expired code (over 10 minutes) and a replaced code do not link', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    t.clock.advance(10 * 60_000);
    const chat = newChatId();
    await postUpdate(t, textUpdate(chat, `/start ${code}`));
    assert.equal(await isLinked(t, u), false);

    const first = await linkCode(t, u);
    await linkCode(t, u);
    await postUpdate(t, textUpdate(chat, `/start ${first.code}`));
    assert.equal(await isLinked(t, u), false);
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 2);
    for (const c of bot.sent(chat)) assert.match(String(c.payload.text), /unknown, already used or expired/);
  });

  test('unlink: linked false, idempotent; /stop from the chat unlinks too', async () => {
    const u = await registerAndLogin(t.app);
    await linkTelegram(t, u, newChatId());
    for (let i = 0; i < 2; i++) {
      const res = await post('/chat/unlink', u.cookie);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { success: true });
      assert.equal(await isLinked(t, u), false);
    }
    const chat = newChatId();
    await linkTelegram(t, u, chat);
    assert.equal(await isLinked(t, u), true);
    await postUpdate(t, textUpdate(chat, '/stop'));
    assert.equal(await isLinked(t, u), false);
    await drainOutbox(t);
    assert.match(String(bot.sent(chat).at(-1)!.payload.text), /Unlinked/);
  });

  test('opening a bet: one message per follower with a linked chat, with Tail and Fade buttons', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const [f1, f2, unlinked, stranger] = await Promise.all([1, 2, 3, 4].map(() => registerAndLogin(t.app)));
    const c1 = newChatId();
    const c2 = newChatId();
    const cs = newChatId();
    await linkTelegram(t, f1!, c1);
    await linkTelegram(t, f2!, c2);
    await linkTelegram(t, stranger!, cs);
    await follow(t, f1!, leader);
    await follow(t, f2!, leader);
    await follow(t, unlinked!, leader);
    await drainOutbox(t);
    bot.clear();

    const bet = await insertOpenBet(t, leader.id, 'BTC-USD', 'SHORT');
    assert.equal(bot.calls.length, 0, 'opening a bet never waits for Telegram');
    await drainOutbox(t);
    await drainOutbox(t);
    assert.equal(bot.sent().length, 2);
    for (const chat of [c1, c2]) {
      const [msg] = bot.sent(chat);
      assert.ok(msg);
      assert.equal(bot.sent(chat).length, 1);
      const text = String(msg.payload.text);
      assert.match(text, new RegExp(`${leader.username} opened SHORT BTC-USD at 187.25`));
      assert.match(text, new RegExp(`https://web.example/app/bet/${bet.id}`));
      assert.deepEqual(msg.payload.reply_markup, {
        inline_keyboard: [
          [
            { text: 'Tail', callback_data: `tail:${bet.id}` },
            { text: 'Fade', callback_data: `fade:${bet.id}` },
          ],
        ],
      });
    }
    const listed = await deliveries(f1!);
    assert.equal(listed[0]!.kind, 'bet_opened');
    assert.equal(listed[0]!.bet_id, bet.id);
    assert.equal(listed[0]!.status, 'sent');
    assert.equal((await deliveries(unlinked!)).length, 0);
    // The app lists the notice for both, linked or not.
    for (const u of [f1!, unlinked!]) assert.equal((await notices(u.cookie))[0]!.bet_id, bet.id);
  });

  test('cancellation: only followers whose opening notice was sent are told; a queued one is dropped', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const [early, late] = await Promise.all([1, 2].map(() => registerAndLogin(t.app)));
    const ce = newChatId();
    const cl = newChatId();
    await linkTelegram(t, early!, ce);
    await linkTelegram(t, late!, cl);
    await follow(t, early!, leader);
    const delivered = await insertOpenBet(t, leader.id);
    await drainOutbox(t);
    // Followed after the open: got no opening notice, so no cancel notice either.
    await follow(t, late!, leader);
    bot.clear();
    await finishBet(t, delivered, 'cancelled');
    await drainOutbox(t);
    assert.equal(bot.sent().length, 1);
    assert.equal(bot.sent(ce).length, 1);
    assert.match(String(bot.sent(ce)[0]!.payload.text), new RegExp(`${leader.username} cancelled the LONG AAPL bet`));
    assert.equal(bot.sent(ce)[0]!.payload.reply_markup, undefined);

    // Cancelled before the worker ran: the opening notice is dropped, nothing is sent.
    bot.clear();
    const quick = await insertOpenBet(t, leader.id, 'MSFT');
    await finishBet(t, quick, 'cancelled');
    await drainOutbox(t);
    assert.equal(bot.sent().length, 0);
    const statuses = (await deliveries(late!)).filter((n) => n.bet_id === quick.id).map((n) => [n.kind, n.status]);
    assert.deepEqual(statuses, [['bet_opened', 'dropped']]);
  });

  test('an opening notice in flight when the bet is cancelled is followed by the cancellation', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    await follow(t, f, leader);
    await drainOutbox(t);
    bot.clear();
    const bet = await insertOpenBet(t, leader.id);
    // The cancel commits while the worker is sending the opening notice.
    const original = t.ctx.chatTransport.send.bind(t.ctx.chatTransport);
    t.ctx.chatTransport.send = async (notice) => {
      const outcome = await original(notice);
      if (notice.kind === 'bet_opened') await finishBet(t, bet, 'cancelled');
      return outcome;
    };
    try {
      await drainOutbox(t);
    } finally {
      t.ctx.chatTransport.send = original;
    }
    assert.deepEqual(
      bot.sent(chat).map((c) => /cancelled/.test(String(c.payload.text))),
      [false, true],
    );
  });

  test('settlement: the owner gets the result', async () => {
    const owner = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, owner, chat);
    const bet = await insertOpenBet(t, owner.id, 'SPY');
    await drainOutbox(t);
    bot.clear();
    await finishBet(t, bet, 'settled', 196.6125);
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 1);
    assert.match(String(bot.sent(chat)[0]!.payload.text), /Your LONG SPY bet was settled at 196\.6125 \(entry 187\.25\): \+5\.00%/);
  });

  test('a failed send is retried with backoff, and given up after the bound (recorded)', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    await follow(t, f, leader);
    await drainOutbox(t);
    bot.clear();

    bot.failNext('sendMessage', 500, 'Internal Server Error');
    await insertOpenBet(t, leader.id);
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 1);
    let [n] = await deliveries(f);
    assert.equal(n!.status, 'pending');
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 1, 'not before the backoff');
    t.clock.advance(5_000);
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 2);
    [n] = await deliveries(f);
    assert.equal(n!.status, 'sent');

    bot.clear();
    bot.failNext('sendMessage', 502, 'Bad Gateway', undefined, MAX_ATTEMPTS);
    await insertOpenBet(t, leader.id, 'NVDA');
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      await drainOutbox(t);
      t.clock.advance(60 * 60_000);
    }
    assert.equal(bot.sent(chat).length, MAX_ATTEMPTS);
    const row = await t.ctx.db.selectFrom('notifications').selectAll().where('user_id', '=', f.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, MAX_ATTEMPTS);
    assert.match(row.last_error ?? '', new RegExp(`gave up after ${MAX_ATTEMPTS} attempts: 502`));
  });

  test("429: waits Telegram's retry_after before trying that notice (and the rest of the batch) again", async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const [a, b] = await Promise.all([1, 2].map(() => registerAndLogin(t.app)));
    const ca = newChatId();
    const cb = newChatId();
    await linkTelegram(t, a!, ca);
    await linkTelegram(t, b!, cb);
    await follow(t, a!, leader);
    await follow(t, b!, leader);
    await drainOutbox(t);
    bot.clear();

    bot.failNext('sendMessage', 429, 'Too Many Requests: retry after 30', { retry_after: 30 });
    await insertOpenBet(t, leader.id);
    await drainOutbox(t);
    assert.equal(bot.sent().length, 1, 'the rest of the batch waits too');
    t.clock.advance(29_000);
    await drainOutbox(t);
    assert.equal(bot.sent().length, 1);
    t.clock.advance(1_000);
    await drainOutbox(t);
    assert.equal(bot.sent(ca).length + bot.sent(cb).length, 3);
    for (const u of [a!, b!]) assert.equal((await deliveries(u))[0]!.status, 'sent');
  });

  test('a request Telegram refuses for good (400) is failed at once, not retried', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    await follow(t, f, leader);
    await drainOutbox(t);
    bot.clear();
    bot.failNext('sendMessage', 400, 'Bad Request: chat not found');
    await insertOpenBet(t, leader.id);
    await drainOutbox(t);
    t.clock.advance(60 * 60_000);
    await drainOutbox(t);
    assert.equal(bot.sent().length, 1);
    const row = await t.ctx.db.selectFrom('notifications').selectAll().where('user_id', '=', f.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.equal(row.status, 'failed');
    assert.match(row.last_error ?? '', /400: Bad Request: chat not found/);
  });

  test('a chat that blocked the bot (403) is unlinked and gets nothing more', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    await follow(t, f, leader);
    await drainOutbox(t);
    bot.clear();
    bot.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
    await insertOpenBet(t, leader.id);
    await drainOutbox(t);
    assert.equal(await isLinked(t, f), false);
    const [n] = await deliveries(f);
    assert.equal(n!.status, 'failed');
    await insertOpenBet(t, leader.id, 'TSLA');
    await drainOutbox(t);
    assert.equal(bot.sent().length, 1);
  });

  test('a member update saying the bot was blocked unlinks the chat', async () => {
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    const user = { id: chat, is_bot: false, first_name: 'Tester' };
    const me = { id: 4242, is_bot: true, first_name: 'Paper' };
    const res = await postUpdate(t, {
      update_id: 900_000 + chat,
      my_chat_member: {
        chat: { id: chat, type: 'private', first_name: 'Tester' },
        from: user,
        date: 1_700_000_000,
        old_chat_member: { status: 'member', user: me },
        new_chat_member: { status: 'kicked', user: me, until_date: 0 },
      },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(await isLinked(t, f), false);
  });

  test('unlinking drops notices still queued for the user', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    const chat = newChatId();
    await linkTelegram(t, f, chat);
    await follow(t, f, leader);
    await drainOutbox(t);
    bot.clear();
    await insertOpenBet(t, leader.id);
    await post('/chat/unlink', f.cookie);
    await drainOutbox(t);
    assert.equal(bot.sent().length, 0);
    assert.equal((await deliveries(f))[0]!.status, 'dropped');
  });

  test('deleting the account removes its chat link, code and notices', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    await linkTelegram(t, f, newChatId());
    await linkCode(t, f);
    await follow(t, f, leader);
    await insertOpenBet(t, leader.id);
    const del = await t.app.inject({ method: 'DELETE', url: '/me', payload: { password: f.password }, headers: { cookie: f.cookie } });
    assert.equal(del.statusCode, 200);
    for (const table of ['chat_links', 'chat_link_codes', 'notifications'] as const) {
      const left = await t.ctx.db.selectFrom(table).select('user_id').where('user_id', '=', f.id).execute();
      assert.equal(left.length, 0, table);
    }
  });

  test('GET /notifications: newest first, paged, only the caller’s', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    await linkTelegram(t, f, newChatId());
    await follow(t, f, leader);
    const bets = [];
    for (const ticker of ['AAPL', 'MSFT', 'AMZN']) bets.push(await insertOpenBet(t, leader.id, ticker));
    await drainOutbox(t);
    const all = await notices(f.cookie);
    assert.deepEqual(
      all.filter((n) => n.kind === 'bet_opened').map((n) => n.bet_id),
      bets.map((b) => b.id).reverse(),
    );
    for (const n of all) {
      assert.deepEqual(Object.keys(n).sort(), ['bet_id', 'created_at', 'id', 'kind', 'link', 'read', 'text']);
      assert.ok(!Number.isNaN(Date.parse(String(n.created_at))));
    }
    const page = await notices(f.cookie, '?limit=1&offset=1');
    assert.deepEqual(page, [all[1]]);
    assert.equal((await notices(leader.cookie)).length, 0);
    assert.equal((await get('/notifications?limit=0', f.cookie)).statusCode, 400);
  });
});

forEachDialect('outbox workers racing', (dialect) => {
  let t: TestApp;
  let bot: FakeTelegram;
  before(async () => {
    bot = await new FakeTelegram().start();
    t = await createTestApp(dialect, {
      config: { telegram: { botToken: bot.token, botUsername: null, webhookSecret: WEBHOOK_SECRET, apiUrl: bot.url } },
    });
  });
  after(async () => {
    await t.close();
    await bot.stop();
  });

  test('two workers never send one notice twice', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const followers = await Promise.all(Array.from({ length: 12 }, () => registerAndLogin(t.app)));
    for (const f of followers) {
      await linkTelegram(t, f, newChatId());
      await follow(t, f, leader);
    }
    for (const ticker of ['AAPL', 'MSFT', 'NVDA']) await insertOpenBet(t, leader.id, ticker);
    // Chat deliveries (registration also queued each user's verification email, which another worker sends).
    const expected = await t.ctx.db
      .selectFrom('notifications')
      .select('id')
      .where('status', '=', 'pending')
      .where('transport', '!=', 'email')
      .execute();
    assert.equal(expected.length, 12 + 12 * 3);

    bot.delayMs = 2;
    const worker = () => chatOutbox(t, t.ctx.chatTransport, { batchSize: 4 });
    const drain = async (w: Outbox) => {
      while ((await w.runOnce()) > 0);
    };
    await Promise.all([drain(worker()), drain(worker())]);

    const texts = bot.sent().map((c) => `${c.payload.chat_id}|${c.payload.text}`);
    assert.equal(texts.length, expected.length);
    assert.equal(new Set(texts).size, texts.length, 'no notice was sent twice');
    const pending = await t.ctx.db.selectFrom('notifications').select('id').where('status', '!=', 'sent').where('transport', '!=', 'email').execute();
    assert.equal(pending.length, 0);
  });

  test('stop() lets the send in hand be recorded and hands the rest of the batch back', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const followers = await Promise.all([1, 2, 3].map(() => registerAndLogin(t.app)));
    for (const f of followers) {
      await linkTelegram(t, f, newChatId());
      await follow(t, f, leader);
    }
    await drainOutbox(t);
    const bet = await insertOpenBet(t, leader.id);
    let entered!: () => void;
    const inSend = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = t.ctx.chatTransport;
    const outbox = chatOutbox(t, {
      name: real.name,
      send: async (n) => {
        entered();
        await gate;
        return real.send(n);
      },
    });
    const w = new PeriodicJob(outbox.jobs()[0]!);
    w.start();
    await inSend;
    const stopped = w.stop();
    release();
    await stopped;
    const rows = await t.ctx.db.selectFrom('notifications').selectAll().where('bet_id', '=', bet.id).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'pending', 'pending'],
    );
    assert.deepEqual(
      rows.map((r) => r.claim_token),
      [null, null, null],
    );
    await drainOutbox(t);
  });

  test('a batch that outlasts its lease: the rows another worker took meanwhile are not sent again', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const followers = await Promise.all([1, 2, 3].map(() => registerAndLogin(t.app)));
    for (const f of followers) {
      await linkTelegram(t, f, newChatId());
      await follow(t, f, leader);
    }
    await drainOutbox(t);
    const bet = await insertOpenBet(t, leader.id);
    const real = t.ctx.chatTransport;
    const sent: string[] = [];
    const options = { leaseMs: 1000, batchSize: 10 };
    const other = chatOutbox(
      t,
      {
        name: real.name,
        send: async (n) => {
          sent.push(n.chatId);
          return real.send(n);
        },
      },
      options,
    );
    let sends = 0;
    const slow = chatOutbox(
      t,
      {
        name: real.name,
        send: async (n) => {
          sent.push(n.chatId);
          // Each send takes 0.6 s, within the 1 s lease, but the batch outlasts it: during
          // the second send the third row's lease has run out and another worker takes it.
          t.clock.advance(600);
          if (++sends === 2) while ((await other.runOnce()) > 0);
          return real.send(n);
        },
      },
      options,
    );
    assert.equal(await slow.runOnce(), 3);
    assert.equal(sent.length, 3, `each notice sent once: ${sent.join(', ')}`);
    assert.equal(new Set(sent).size, 3);
    const rows = await t.ctx.db.selectFrom('notifications').select('status').where('bet_id', '=', bet.id).execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'sent', 'sent'],
    );
  });

  test('link-code without a bot username: no deep link', async () => {
    const u = await registerAndLogin(t.app);
    assert.equal((await linkCode(t, u)).deep_link, null);
  });
});
