// The one notice model: followed traders' bet events derived from the follow's
// start (gone with an unfollow), stored notices, the read marker and the
// unread count, whether or not a chat is linked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addUserNotice } from '../../src/repositories/user-notices.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { finishBet, insertOpenBet } from '../helpers/messaging.js';

forEachDialect('notices', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const get = (url: string, u?: TestUser) => t.app.inject({ method: 'GET', url, headers: u ? { cookie: u.cookie } : {} });
  const notices = async (u: TestUser, query = '') => {
    const res = await get(`/notifications${query}`, u);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Array<{
      id: string;
      kind: string;
      text: string;
      bet_id: number | null;
      link: string | null;
      created_at: string;
      read: boolean;
    }>;
  };
  const unread = async (u: TestUser) => {
    const res = await get('/notifications/unread', u);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { unread: number; read_until: string | null };
  };
  const markRead = (u: TestUser, body: object = {}) =>
    t.app.inject({ method: 'POST', url: '/notifications/read', headers: { cookie: u.cookie }, payload: body });
  const followApi = async (u: TestUser, other: TestUser, action: 'follow' | 'unfollow') => {
    const res = await t.app.inject({ method: 'POST', url: '/follow', headers: { cookie: u.cookie }, payload: { followed_id: other.id, action } });
    assert.equal(res.statusCode, 200, res.body);
  };

  test('a followed trader’s bets are listed from the follow’s start, without a chat, and leave with the unfollow', async () => {
    const trader = await registerAndLogin(t.app, 'trd');
    const reader = await registerAndLogin(t.app, 'rdr');
    const before = await insertOpenBet(t, trader.id, 'AAPL');
    t.clock.advance(1_000);
    await followApi(reader, trader, 'follow');
    t.clock.advance(1_000);
    const opened = await insertOpenBet(t, trader.id, 'MSFT', 'SHORT');
    t.clock.advance(1_000);
    await finishBet(t, before, 'cancelled');

    const list = await notices(reader);
    assert.deepEqual(
      list.map((n) => [n.kind, n.bet_id]),
      [
        ['bet_cancelled', before.id],
        ['bet_opened', opened.id],
      ],
    );
    const [c, o] = list;
    assert.equal(o!.text, `${trader.username} opened SHORT MSFT at 187.25.`);
    assert.equal(c!.text, `${trader.username} cancelled the LONG AAPL bet opened at 187.25.`);
    assert.equal(o!.link, `bet/${opened.id}`);
    assert.equal(o!.id, `opened-${opened.id}`);
    for (const n of list) {
      assert.doesNotMatch(n.text, /https?:|Telegram|\/stop/);
      assert.equal(n.read, false);
      assert.deepEqual(Object.keys(n).sort(), ['bet_id', 'created_at', 'id', 'kind', 'link', 'read', 'text']);
    }
    assert.equal(new Date(o!.created_at).getTime(), opened.opened_at);
    assert.equal((await unread(reader)).unread, 2);

    // No row per follower for the app: nothing was queued (no chat linked).
    const queued = await t.ctx.db.selectFrom('notifications').select('id').where('user_id', '=', reader.id).where('bet_id', 'is not', null).execute();
    assert.equal(queued.length, 0);

    await followApi(reader, trader, 'unfollow');
    assert.deepEqual(await notices(reader), []);
    assert.equal((await unread(reader)).unread, 0);

    // Following again starts again: earlier bets stay out.
    t.clock.advance(1_000);
    await followApi(reader, trader, 'follow');
    assert.deepEqual(await notices(reader), []);
    t.clock.advance(1_000);
    const later = await insertOpenBet(t, trader.id, 'NVDA');
    assert.deepEqual(
      (await notices(reader)).map((n) => n.bet_id),
      [later.id],
    );
  });

  test('stored notices, settlement notices, paging, and the read marker', async () => {
    const u = await registerAndLogin(t.app, 'sto');
    await addUserNotice(t.ctx.db, { userId: u.id, kind: 'account_password_changed', text: 'Your password was changed.' }, t.clock.now());
    t.clock.advance(1_000);
    await addUserNotice(
      t.ctx.db,
      { userId: u.id, kind: 'league_started', text: 'The league Spring has started.', link: '/leagues/7' },
      t.clock.now(),
    );
    t.clock.advance(1_000);
    const own = await insertOpenBet(t, u.id, 'TSLA');
    t.clock.advance(1_000);
    await finishBet(t, own, 'settled', 200);

    const list = await notices(u);
    assert.deepEqual(
      list.map((n) => n.kind),
      ['bet_settled', 'league_started', 'account_password_changed'],
    );
    assert.equal(list[0]!.link, `bet/${own.id}`);
    assert.match(list[0]!.text, /^Your LONG TSLA bet was settled at 200 \(entry 187\.25\): \+6\.81%\.$/);
    assert.equal(list[1]!.link, 'leagues/7');
    assert.equal(list[2]!.link, null);
    assert.match(list[2]!.id, /^notice-\d+$/);
    assert.deepEqual(await notices(u, '?limit=1&offset=1'), [list[1]]);

    const state = await unread(u);
    assert.deepEqual(state, { unread: 3, read_until: null });

    // Read up to the second newest: one stays unread.
    const r1 = await markRead(u, { until: list[1]!.created_at });
    assert.equal(r1.statusCode, 200, r1.body);
    assert.deepEqual(r1.json(), { unread: 1, read_until: list[1]!.created_at });
    assert.deepEqual(
      (await notices(u)).map((n) => n.read),
      [false, true, true],
    );
    // The marker never moves back.
    const back = await markRead(u, { until: list[2]!.created_at });
    assert.deepEqual(back.json(), { unread: 1, read_until: list[1]!.created_at });
    // Without `until`: everything up to now; a newer notice is unread again.
    assert.equal((await markRead(u)).json().unread, 0);
    t.clock.advance(1_000);
    await addUserNotice(t.ctx.db, { userId: u.id, kind: 'account_email_changed', text: 'Your address was changed.' }, t.clock.now());
    assert.equal((await unread(u)).unread, 1);
    // A future `until` counts as now.
    const future = await markRead(u, { until: new Date(t.clock.now() + 3_600_000).toISOString() });
    assert.deepEqual(future.json(), { unread: 0, read_until: new Date(t.clock.now()).toISOString() });
  });

  test('another user sees none of it; no session is 401; bad input is 400', async () => {
    const a = await registerAndLogin(t.app, 'own');
    const b = await registerAndLogin(t.app, 'oth');
    await addUserNotice(t.ctx.db, { userId: a.id, kind: 'account_password_changed', text: 'Your password was changed.' }, t.clock.now());
    assert.equal((await notices(a)).length, 1);
    assert.deepEqual(await notices(b), []);
    assert.equal((await unread(b)).unread, 0);
    await markRead(b);
    assert.equal((await unread(a)).unread, 1, "b's marker is b's own");

    for (const [method, url] of [
      ['GET', '/notifications'],
      ['GET', '/notifications/unread'],
      ['POST', '/notifications/read'],
    ] as const) {
      const res = await t.app.inject({ method, url, ...(method === 'POST' ? { payload: {} } : {}) });
      assert.equal(res.statusCode, 401, url);
    }
    assert.equal((await markRead(a, { until: 'yesterday' })).statusCode, 400);
    assert.equal((await markRead(a, { other: 1 })).statusCode, 400);
    assert.equal((await get('/notifications?limit=0', a)).statusCode, 400);
  });

  test('addUserNotice refuses a text with an address or a link to another host', async () => {
    const u = await registerAndLogin(t.app, 'bad');
    await assert.rejects(addUserNotice(t.ctx.db, { userId: u.id, kind: 'x', text: 'See https://evil.example' }, 0), /URL/);
    await assert.rejects(addUserNotice(t.ctx.db, { userId: u.id, kind: 'x', text: 'ok', link: 'https://evil.example' }, 0), /path/);
    await assert.rejects(addUserNotice(t.ctx.db, { userId: u.id, kind: 'Bad Kind', text: 'ok' }, 0), /kind/);
  });
});
