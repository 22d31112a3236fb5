import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewBet } from '../../src/db/tables.js';
import { EXPORT_PAGE } from '../../src/services/account-control.js';
import { forEachDialect } from '../helpers/db.js';
import { usernameKey } from '../../src/domain/accounts.js';
import { insertUser } from '../../src/repositories/users.js';
import { cookieFrom, createTestApp, PASSWORD, registerAndLogin, type TestApp, uniqueName } from '../helpers/app.js';

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
    assert.equal(row.username, `deleted:${u.id}`, 'a name registration cannot produce');
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

  /** An account made before names starting with "deleted" were reserved (registration refuses them now). */
  const insertLive = async (username: string, email: string, password_hash = '$argon2id$not-a-real-hash') =>
    insertUser(t.ctx.db, { username, username_lower: usernameKey(username), email, password_hash, created_at: t.clock.now() });
  const deleteMe = (cookie: string) => t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie }, payload: { password: PASSWORD } });

  test('deletion cannot be blocked by any name or email taken before, for this id or ids not yet issued', async () => {
    const u = await registerAndLogin(t.app);
    // The old anonymous form (deleted_<id>, deleted_<id>@deleted.invalid), taken by live accounts.
    const later = Array.from({ length: 6 }, (_, i) => u.id + 10 + i);
    for (const name of [`deleted_${u.id}`, `Deleted_${u.id}`, 'Deleted_42', ...later.map((id) => `deleted_${id}`)]) {
      if (!(await t.ctx.db.selectFrom('users').select('id').where('username_lower', '=', usernameKey(name)).executeTakeFirst())) {
        await insertLive(name, `${usernameKey(name)}@deleted.invalid`);
      }
    }
    // Emails are not reserved: registration may still take one of the old form.
    const username = uniqueName();
    const email = `deleted_${u.id + 100}@deleted.invalid`;
    assert.equal((await t.app.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } })).statusCode, 201);

    assert.equal((await deleteMe(u.cookie)).statusCode, 200);
    const row = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.ok(row.deleted_at);
    assert.equal((await login(u.email, PASSWORD)).statusCode, 401);

    // Accounts that get the ids whose old anonymous names are taken delete as well.
    const covered: number[] = [];
    for (let n = 0; n < 40 && covered.length < later.length; n++) {
      const v = await registerAndLogin(t.app);
      assert.equal((await deleteMe(v.cookie)).statusCode, 200, `deleting #${v.id}`);
      if (later.includes(v.id)) covered.push(v.id);
      if (v.id > later[later.length - 1]!) break;
    }
    assert.ok(covered.length > 0, 'an id whose old anonymous name was taken came up');
  });

  test('a live account whose name starts with "deleted", from before the rule, signs in, shows, and deletes as any other', async () => {
    const name = `deletedfoo${Math.floor(Math.random() * 1e6)}`;
    const email = `${name}@example.test`;
    const id = await insertLive(name, email, await t.ctx.passwords.hash(PASSWORD, { ip: '127.0.0.1' }));
    const res = await login(email, PASSWORD);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().username, name);
    const profile = await t.app.inject({ method: 'GET', url: `/user/${id}/public` });
    assert.equal(profile.statusCode, 200);
    assert.equal(profile.json().user.username, name, 'shown as live: deletion is the flag, not the name');
    assert.equal((await deleteMe(cookieFrom(res))).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/user/${id}/public` })).statusCode, 404);
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
      'thesis',
      'ticker',
    ]);
    assert.equal(list[0].status, 'OPEN');
    assert.equal(list[0].exit_date, null);
    assert.equal(new Set(list.map((b: { id: number }) => b.id)).size, list.length);

    const csv = await t.app.inject({ method: 'GET', url: '/me/export?format=csv', headers: { cookie: u.cookie } });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines[0], 'id,ticker,direction,status,entry_price,exit_price,percentage_gain,target_date,entry_date,exit_date,thesis');
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
