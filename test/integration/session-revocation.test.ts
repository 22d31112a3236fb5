// Every way a session ends ends it at once, also right after it was used
// (its token's signature is then known to the token cache; the session row decides).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, PASSWORD, registerAndLogInThroughApi, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

forEachDialect('session revocation after use', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const me = (cookie: string) => t.app.inject({ method: 'GET', url: '/me', headers: { cookie } });
  const loginAgain = async (email: string, password = PASSWORD) => {
    const res = await t.app.inject({ method: 'POST', url: '/login', payload: { email, password } });
    assert.equal(res.statusCode, 200);
    return `auth_token=${res.cookies.find((c) => c.name === 'auth_token')!.value}`;
  };

  test('logout ends a session that was just used', async () => {
    const u = await registerAndLogInThroughApi(t.app, 'rv');
    assert.equal((await me(u.cookie)).statusCode, 200);
    assert.equal((await me(u.cookie)).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie } })).statusCode, 200);
    assert.equal((await me(u.cookie)).statusCode, 401);
  });

  test('a password change ends the other sessions, used or not, and keeps its own', async () => {
    const u = await registerAndLogInThroughApi(t.app, 'rv');
    const used = await loginAgain(u.email);
    const unused = await loginAgain(u.email);
    assert.equal((await me(used)).statusCode, 200);
    const change = await t.app.inject({
      method: 'POST',
      url: '/me/password',
      headers: { cookie: u.cookie },
      payload: { current_password: PASSWORD, new_password: 'another perfectly fine passphrase' },
    });
    assert.ok(change.statusCode < 300, change.body);
    assert.equal((await me(used)).statusCode, 401);
    assert.equal((await me(unused)).statusCode, 401);
    assert.equal((await me(u.cookie)).statusCode, 200);
  });

  test('deleting the account ends every session of it', async () => {
    const u = await registerAndLogInThroughApi(t.app, 'rv');
    const other = await loginAgain(u.email);
    assert.equal((await me(other)).statusCode, 200);
    assert.equal((await me(u.cookie)).statusCode, 200);
    const del = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: u.cookie }, payload: { password: PASSWORD } });
    assert.ok(del.statusCode < 300, del.body);
    assert.equal((await me(u.cookie)).statusCode, 401);
    assert.equal((await me(other)).statusCode, 401);
  });

  test('a session past its expiry ends though it was cached', async () => {
    const u = await registerAndLogInThroughApi(t.app, 'rv');
    assert.equal((await me(u.cookie)).statusCode, 200);
    t.clock.advance(t.ctx.config.sessionTtlSeconds * 1000 + 1);
    assert.equal((await me(u.cookie)).statusCode, 401);
  });
});
