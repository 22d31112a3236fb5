import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewBet } from '../../src/db/tables.js';
import { EXPORT_PAGE } from '../../src/services/account-control.js';
import { forEachDialect } from '../helpers/db.js';
import { cookieFrom, createTestApp, PASSWORD, registerAndLogin, type TestApp } from '../helpers/app.js';

const NEW_PASSWORD = 'another perfectly fine passphrase';

forEachDialect('account control: password, deletion, export', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const login = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/login', payload: { email, password } });
  const me = (cookie: string) => t.app.inject({ method: 'GET', url: '/me', headers: { cookie } });

  test('change password: needs the current one, revokes the other sessions, keeps this one', async () => {
    const u = await registerAndLogin(t.app);
    const other = cookieFrom(await login(u.email, PASSWORD));
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/me/password',
      headers: { cookie: u.cookie },
      payload: { current_password: 'not the password at all', new_password: NEW_PASSWORD },
    });
    assert.equal(wrong.statusCode, 403);
    const weak = await t.app.inject({
      method: 'POST',
      url: '/me/password',
      headers: { cookie: u.cookie },
      payload: { current_password: PASSWORD, new_password: 'short' },
    });
    assert.equal(weak.statusCode, 400);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/me/password',
      headers: { cookie: u.cookie },
      payload: { current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal((await me(u.cookie)).statusCode, 200, 'this session stays');
    assert.equal((await me(other)).statusCode, 401, 'other sessions are revoked');
    assert.equal((await login(u.email, PASSWORD)).statusCode, 401);
    assert.equal((await login(u.email, NEW_PASSWORD)).statusCode, 200);
  });

  test('change password: 401 without a session', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/me/password', payload: { current_password: 'x', new_password: NEW_PASSWORD } });
    assert.equal(res.statusCode, 401);
  });

  test('delete account: needs the password; removes email, hash, sessions, follows, leaderboard; bets stay', async () => {
    const u = await registerAndLogin(t.app);
    const friend = await registerAndLogin(t.app);
    const now = t.clock.now();
    await t.ctx.db
      .insertInto('follows')
      .values([
        { follower_id: u.id, followed_id: friend.id, created_at: now },
        { follower_id: friend.id, followed_id: u.id, created_at: now },
      ])
      .execute();
    await t.ctx.db.insertInto('bets').values(bet(u.id, now)).execute();
    await t.ctx.db.insertInto('leaderboard').values({ user_id: u.id, total_score: 5, total_trades: 1 }).execute();

    const wrong = await t.app.inject({
      method: 'DELETE',
      url: '/me',
      headers: { cookie: u.cookie },
      payload: { password: 'wrong password entirely' },
    });
    assert.equal(wrong.statusCode, 403);
    const res = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: u.cookie }, payload: { password: PASSWORD } });
    assert.equal(res.statusCode, 200);

    assert.equal((await me(u.cookie)).statusCode, 401);
    assert.equal((await login(u.email, PASSWORD)).statusCode, 401);
    const row = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal(row.username, `deleted_${u.id}`);
    assert.notEqual(row.email, u.email);
    assert.equal(row.password_hash, '');
    assert.ok(row.deleted_at);
    const follows = await t.ctx.db
      .selectFrom('follows')
      .selectAll()
      .where((eb) => eb.or([eb('follower_id', '=', u.id), eb('followed_id', '=', u.id)]))
      .execute();
    assert.equal(follows.length, 0);
    assert.equal((await t.ctx.db.selectFrom('leaderboard').selectAll().where('user_id', '=', u.id).execute()).length, 0);
    assert.equal((await t.ctx.db.selectFrom('bets').selectAll().where('user_id', '=', u.id).execute()).length, 1, 'bets stay');
    // The name and email are free again.
    const again = await t.app.inject({ method: 'POST', url: '/register', payload: { username: u.username, email: u.email, password: PASSWORD } });
    assert.equal(again.statusCode, 201);
  });

  test("export: JSON and CSV of every bet, streamed across keyset pages; only the caller's", async () => {
    const u = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const now = t.clock.now();
    const rows: NewBet[] = Array.from({ length: EXPORT_PAGE + 5 }, (_, i) => bet(u.id, now - i * 60_000));
    rows[0] = { ...rows[0], ticker: 'BRK.B', status: 'OPEN', exit_price: null, percentage_gain: null, closed_at: null, close_reason: null };
    for (let i = 0; i < rows.length; i += 200)
      await t.ctx.db
        .insertInto('bets')
        .values(rows.slice(i, i + 200))
        .execute();
    await t.ctx.db.insertInto('bets').values(bet(other.id, now)).execute();

    const json = await t.app.inject({ method: 'GET', url: '/me/export', headers: { cookie: u.cookie } });
    assert.equal(json.statusCode, 200);
    assert.match(String(json.headers['content-type']), /application\/json/);
    assert.equal(json.headers['cache-control'], 'no-store');
    const list = json.json();
    assert.equal(list.length, EXPORT_PAGE + 5);
    assert.deepEqual(Object.keys(list[0]).sort(), [
      'direction',
      'entry_date',
      'entry_price',
      'exit_date',
      'exit_price',
      'id',
      'percentage_gain',
      'status',
      'target_date',
      'ticker',
    ]);
    assert.equal(list[0].status, 'OPEN');
    assert.equal(list[0].exit_date, null);
    assert.equal(new Set(list.map((b: { id: number }) => b.id)).size, list.length);

    const csv = await t.app.inject({ method: 'GET', url: '/me/export?format=csv', headers: { cookie: u.cookie } });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines[0], 'id,ticker,direction,status,entry_price,exit_price,percentage_gain,target_date,entry_date,exit_date');
    assert.equal(lines.length, EXPORT_PAGE + 6);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="bets-\d{4}-\d{2}-\d{2}\.csv"/);

    assert.equal((await t.app.inject({ method: 'GET', url: '/me/export?format=xml', headers: { cookie: u.cookie } })).statusCode, 400);
    assert.equal((await t.app.inject({ method: 'GET', url: '/me/export' })).statusCode, 401);
  });
});

function bet(userId: number, at: number): NewBet {
  return {
    user_id: userId,
    ticker: 'AAPL',
    direction: 'LONG',
    status: 'CLOSED',
    entry_price: 100,
    exit_price: 110,
    percentage_gain: 10,
    target_date: null,
    settle_at: null,
    opened_at: at - 3_600_000,
    closed_at: at,
    last_event_at: at,
    close_reason: 'user',
    source_bet_id: null,
    source_kind: null,
  };
}
