import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { cookieFrom, createTestApp, PASSWORD, registerAndLogInThroughApi, type TestApp, uniqueName } from '../helpers/app.js';

forEachDialect('accounts and sessions', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const post = (url: string, payload?: unknown, cookie?: string) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers: cookie ? { cookie } : {} });
  const me = (cookie?: string) => t.app.inject({ method: 'GET', url: '/me', headers: cookie ? { cookie } : {} });

  test('register: 201 with a message and no cookie', async () => {
    const username = uniqueName();
    const res = await post('/register', { username, email: `${username}@Example.test`, password: PASSWORD });
    assert.equal(res.statusCode, 201);
    assert.equal(typeof res.json().message, 'string');
    assert.deepEqual(Object.keys(res.json()), ['message']);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  test('register: 400 for bad usernames, emails, passwords and unknown fields', async () => {
    const ok = { username: uniqueName(), email: `${uniqueName()}@example.test`, password: PASSWORD };
    const bad: Array<[string, unknown]> = [
      ['short password', { ...ok, password: 'a'.repeat(14) }],
      ['password over 256', { ...ok, password: 'a'.repeat(257) }],
      ['common password', { ...ok, password: '123456789012345' }],
      ['bad email', { ...ok, email: 'not-an-email' }],
      ['username too short', { ...ok, username: 'ab' }],
      ['username with a dash', { ...ok, username: 'a-b-c' }],
      ['username too long', { ...ok, username: 'a'.repeat(31) }],
      ['unknown field', { ...ok, admin: true }],
      ['missing password', { username: ok.username, email: ok.email }],
      ['number as username', { ...ok, username: 12345 }],
    ];
    for (const [why, body] of bad) {
      const res = await post('/register', body);
      assert.equal(res.statusCode, 400, why);
      assert.deepEqual(Object.keys(res.json()), ['error'], why);
    }
  });

  test('register: names starting with "deleted", any case, are reserved (400 saying so)', async () => {
    for (const username of ['deleted', 'deleted_7', 'Deleted_42', 'DELETEDfoo', `deleted_${uniqueName()}`]) {
      const res = await post('/register', { username, email: `${uniqueName()}@example.test`, password: PASSWORD });
      assert.equal(res.statusCode, 400, username);
      assert.match(res.json().error, /"deleted" are reserved/, username);
    }
    assert.equal(
      (await post('/register', { username: `un${uniqueName()}`, email: `${uniqueName()}@example.test`, password: PASSWORD })).statusCode,
      201,
    );
  });

  test('register: 409 for a taken username (any case) or email (any case)', async () => {
    const u = await registerAndLogInThroughApi(t.app);
    const again = await post('/register', { username: u.username.toUpperCase(), email: `${uniqueName()}@x.test`, password: PASSWORD });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { error: 'Username already exists' });
    const sameEmail = await post('/register', { username: uniqueName(), email: u.email.toUpperCase(), password: PASSWORD });
    assert.equal(sameEmail.statusCode, 409);
    assert.deepEqual(sameEmail.json(), { error: 'Email already registered' });
    // Both taken: the username is named.
    const both = await post('/register', { username: u.username, email: u.email, password: PASSWORD });
    assert.deepEqual([both.statusCode, both.json()], [409, { error: 'Username already exists' }]);
  });

  test('login: 200 User, HttpOnly Lax cookie for 7 days; /me answers the same user', async () => {
    const username = uniqueName();
    const email = `${username}@example.test`;
    await post('/register', { username, email, password: PASSWORD });
    const res = await post('/login', { email: email.toUpperCase(), password: PASSWORD });
    assert.equal(res.statusCode, 200);
    const user = res.json();
    assert.deepEqual(Object.keys(user).sort(), ['bet_capacity', 'email', 'follow_capacity', 'id', 'pay_subscription_id', 'username']);
    assert.equal(user.username, username);
    assert.equal(user.email, email);
    const c = res.cookies.find((x) => x.name === 'auth_token');
    assert.ok(c);
    assert.equal(c.httpOnly, true);
    assert.equal(c.sameSite, 'Lax');
    assert.equal(c.path, '/');
    assert.equal(c.maxAge, 7 * 24 * 3600);
    // The marker the web app reads to know it has a session: readable by scripts, no secret, same lifetime.
    const marker = res.cookies.find((x) => x.name === 'signed_in');
    assert.deepEqual(marker && { ...marker, httpOnly: marker.httpOnly ?? false }, {
      name: 'signed_in',
      value: '1',
      httpOnly: false,
      sameSite: 'Lax',
      path: '/',
      maxAge: 7 * 24 * 3600,
    });
    const m = await me(cookieFrom(res));
    assert.equal(m.statusCode, 200);
    assert.deepEqual(m.json(), user);
    assert.equal(m.headers['cache-control'], 'no-store');
  });

  test('login: unknown email and wrong password give the same 401', async () => {
    const u = await registerAndLogInThroughApi(t.app);
    const wrong = await post('/login', { email: u.email, password: `${PASSWORD}!` });
    const unknown = await post('/login', { email: `${uniqueName()}@nowhere.test`, password: PASSWORD });
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(wrong.json(), unknown.json());
    assert.equal(wrong.headers['set-cookie'], undefined);
    const padded = await post('/login', { email: u.email, password: ` ${PASSWORD}` });
    assert.equal(padded.statusCode, 401, 'passwords are compared exactly as sent');
  });

  test('login: 400 for malformed bodies', async () => {
    assert.equal((await post('/login', { email: 'x@y.test' })).statusCode, 400);
    assert.equal((await post('/login', { email: 'x@y.test', password: 123 })).statusCode, 400);
    assert.equal((await post('/login', { email: 'x@y.test', password: 'p', extra: 1 })).statusCode, 400);
  });

  test('/me: 401 without, or with a bad, cookie', async () => {
    assert.equal((await me()).statusCode, 401);
    assert.deepEqual(Object.keys((await me()).json()), ['error']);
    assert.equal((await me('auth_token=garbage')).statusCode, 401);
  });

  test('logout deletes the session: an old copy of the cookie stops working', async () => {
    const u = await registerAndLogInThroughApi(t.app);
    assert.equal((await me(u.cookie)).statusCode, 200);
    const out = await post('/logout', undefined, u.cookie);
    assert.equal(out.statusCode, 200);
    assert.equal(typeof out.json().message, 'string');
    const cleared = out.cookies.find((c) => c.name === 'auth_token');
    assert.ok(cleared && (cleared.value === '' || (cleared.expires && cleared.expires.getTime() < Date.now())));
    const marker = out.cookies.find((c) => c.name === 'signed_in');
    assert.ok(marker && marker.value === '' && marker.expires && marker.expires.getTime() < Date.now(), 'the marker goes with the session');
    assert.equal((await me(u.cookie)).statusCode, 401);
    assert.equal((await me('signed_in=1')).statusCode, 401, 'the marker alone is no session');
  });

  test('logout without a session still answers 200', async () => {
    assert.equal((await post('/logout')).statusCode, 200);
  });

  test('the JWT secret is generated once and stored, so instances on one database agree', async () => {
    const row = await t.ctx.db.selectFrom('settings').select('value').where('key', '=', 'jwt_secret').executeTakeFirst();
    assert.ok(row && row.value.length >= 32);
  });

  test('passwords are stored as argon2id hashes', async () => {
    const u = await registerAndLogInThroughApi(t.app);
    const row = await t.ctx.db.selectFrom('users').select('password_hash').where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$v=19\$/);
    assert.match(row.password_hash, /m=7168/);
    assert.match(row.password_hash, /t=5/);
    assert.match(row.password_hash, /p=1/);
  });
});
