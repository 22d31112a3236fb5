// Tail and fade through the real endpoints and the Telegram buttons, with the
// bet lifecycle's own notices end to end.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeTelegram } from '../helpers/fake-telegram.js';
import { callbackUpdate, drainOutbox, follow, isLinked, linkTelegram, postUpdate, WEBHOOK_SECRET } from '../helpers/messaging.js';
import { FakePriceProvider } from '../helpers/prices.js';

let nextChat = 7_000_000;

forEachDialect('tail and fade', (dialect) => {
  let t: TestApp;
  let bot: FakeTelegram;
  const prices = new FakePriceProvider();
  before(async () => {
    bot = await new FakeTelegram().start();
    t = await createTestApp(dialect, {
      deps: { prices },
      config: {
        capacities: { baseBets: 2, baseFollows: 5 },
        prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 },
        telegram: { botToken: bot.token, botUsername: 'paper_bot', webhookSecret: WEBHOOK_SECRET, apiUrl: bot.url },
      },
    });
  });
  after(async () => {
    await t.close();
    await bot.stop();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as object, headers: user ? { cookie: user.cookie } : {} });
  const open = async (user: TestUser, body: Record<string, unknown>) => {
    const res = await call('POST', '/bet/open', user, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };
  const press = (chatId: number, data: string) => postUpdate(t, callbackUpdate(chatId, data));

  async function setup(): Promise<{ leader: TestUser; fan: TestUser; chat: number }> {
    const leader = await registerAndLogin(t.app, 'lead');
    const fan = await registerAndLogin(t.app, 'fan');
    const chat = nextChat++;
    await linkTelegram(t, fan, chat);
    await follow(t, fan, leader);
    await drainOutbox(t);
    return { leader, fan, chat };
  }

  test('POST /bet/{id}/tail and /fade open the same and the opposite bet, recording the source', async () => {
    const { leader, fan, chat } = await setup();
    bot.clear();
    const betId = await open(leader, { ticker: 'aapl', direction: 'LONG', target_date: '2026-03-06' });
    await drainOutbox(t);
    const [notice] = bot.sent(chat);
    assert.match(String(notice!.payload.text), new RegExp(`${leader.username} opened LONG AAPL at 100`));

    prices.set('AAPL', 101);
    try {
      const tail = await call('POST', `/bet/${betId}/tail`, fan);
      assert.equal(tail.statusCode, 200);
      assert.deepEqual(Object.keys(tail.json()).sort(), ['bet_id', 'entry_price', 'message']);
      assert.equal(tail.json().entry_price, 101);
      const fade = await call('POST', `/bet/${betId}/fade`, fan);
      assert.equal(fade.statusCode, 200);
      const rows = await t.ctx.db
        .selectFrom('bets')
        .select(['id', 'direction', 'ticker', 'target_date', 'source_bet_id', 'source_kind', 'user_id'])
        .where('id', 'in', [tail.json().bet_id, fade.json().bet_id])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.user_id, r.ticker, r.direction, r.target_date, r.source_bet_id, r.source_kind]),
        [
          [fan.id, 'AAPL', 'LONG', '2026-03-06', betId, 'tail'],
          [fan.id, 'AAPL', 'SHORT', '2026-03-06', betId, 'fade'],
        ],
      );
    } finally {
      prices.set('AAPL', 100);
    }
  });

  test('404 unknown bet, 400 not open or own bet, 401 without session, 403 LIMIT_REACHED, 503 without prices', async () => {
    const { leader, fan } = await setup();
    assert.equal((await call('POST', '/bet/999999999/tail', fan)).statusCode, 404);
    assert.equal((await call('POST', '/bet/99999999999999999999/fade', fan)).statusCode, 400, 'past the safe integers');
    assert.equal((await call('POST', '/bet/abc/fade', fan)).statusCode, 400);
    const betId = await open(leader, { ticker: 'MSFT', direction: 'SHORT' });
    assert.equal((await call('POST', `/bet/${betId}/tail`)).statusCode, 401);
    const own = await call('POST', `/bet/${betId}/fade`, leader);
    assert.equal(own.statusCode, 400);
    assert.deepEqual(Object.keys(own.json()), ['error']);

    prices.failing.add('MSFT');
    try {
      const down = await call('POST', `/bet/${betId}/tail`, fan);
      assert.equal(down.statusCode, 503);
      assert.ok(down.headers['retry-after']);
    } finally {
      prices.failing.delete('MSFT');
    }

    assert.equal((await call('POST', `/bet/${betId}/tail`, fan)).statusCode, 200);
    assert.equal((await call('POST', `/bet/${betId}/fade`, fan)).statusCode, 200);
    const limit = await call('POST', `/bet/${betId}/tail`, fan);
    assert.equal(limit.statusCode, 403);
    assert.equal(limit.json().error, 'LIMIT_REACHED');
    assert.equal(limit.json().limit, 2);

    const closed = await call('POST', '/bet/close', leader, { bet_id: betId });
    assert.equal(closed.statusCode, 200);
    const notOpen = await call('POST', `/bet/${betId}/tail`, await registerAndLogin(t.app));
    assert.equal(notOpen.statusCode, 400);
  });

  test('the Tail button in Telegram opens the bet for the chat’s user and says so', async () => {
    const { leader, fan, chat } = await setup();
    const betId = await open(leader, { ticker: 'BTC-USD', direction: 'SHORT' });
    await drainOutbox(t);
    bot.clear();
    const res = await press(chat, `tail:${betId}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().method, 'answerCallbackQuery');
    assert.match(res.json().text, /^Tailed: Opened SHORT BTC-USD at 50000\.$/);
    const copy = await t.ctx.db.selectFrom('bets').selectAll().where('source_bet_id', '=', betId).executeTakeFirstOrThrow();
    assert.equal(copy.user_id, fan.id);
    assert.equal(copy.source_kind, 'tail');
    await drainOutbox(t);
    assert.match(String(bot.sent(chat).at(-1)!.payload.text), /Tailed: Opened SHORT BTC-USD/);

    const fade = await press(chat, `fade:${betId}`);
    assert.match(fade.json().text, /^Faded: Opened LONG BTC-USD/);
    const limit = await press(chat, `tail:${betId}`);
    assert.match(limit.json().text, /limit of 2 open bets/);

    // The leader cancels: the fan had the opening notice, so is told.
    bot.clear();
    assert.equal((await call('DELETE', `/bet/${betId}`, leader)).statusCode, 200);
    await drainOutbox(t);
    const cancels = bot.sent(chat).filter((c) => /cancelled the SHORT BTC-USD bet/.test(String(c.payload.text)));
    assert.equal(cancels.length, 1);
    const closed = await press(chat, `tail:${betId}`);
    assert.match(closed.json().text, /already closed/);
  });

  test('buttons pressed from an unlinked chat, or with unknown data, open nothing', async () => {
    const { leader, fan, chat } = await setup();
    const betId = await open(leader, { ticker: 'SPY', direction: 'LONG' });
    await call('POST', '/chat/unlink', fan);
    assert.equal(await isLinked(t, fan), false);
    const res = await press(chat, `tail:${betId}`);
    assert.match(res.json().text, /not linked/);
    assert.match((await press(chat, 'rm -rf')).json().text, /no longer supported/);
    const copies = await t.ctx.db.selectFrom('bets').select('id').where('source_bet_id', '=', betId).execute();
    assert.equal(copies.length, 0);
  });

  test('cancel through DELETE /bet: a follower who followed after the open gets no cancel notice', async () => {
    const { leader, chat } = await setup();
    const late = await registerAndLogin(t.app, 'late');
    const lateChat = nextChat++;
    await linkTelegram(t, late, lateChat);
    const betId = await open(leader, { ticker: 'AAPL', direction: 'SHORT' });
    await drainOutbox(t);
    await follow(t, late, leader);
    bot.clear();
    assert.equal((await call('DELETE', `/bet/${betId}`, leader)).statusCode, 200);
    await drainOutbox(t);
    assert.equal(bot.sent(chat).length, 1);
    assert.equal(bot.sent(lateChat).length, 0);
  });
});
