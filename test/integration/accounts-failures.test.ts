import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, PASSWORD, registerAndLogInThroughApi, uniqueName } from '../helpers/app.js';

forEachDialect('accounts: database failure and https cookies', (dialect) => {
  test('register: a database error → 500 Error with no internals', async () => {
    const t = await createTestApp(dialect);
    try {
      await sql`alter table users rename to users_unavailable`.execute(t.ctx.db);
      const username = uniqueName();
      const res = await t.app.inject({ method: 'POST', url: '/register', payload: { username, email: `${username}@x.test`, password: PASSWORD } });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), { error: 'Internal server error' });
      assert.doesNotMatch(res.body, /users|sql|table|relation/i);
    } finally {
      await t.close();
    }
  });

  test('with an https PUBLIC_URL the session cookie is Secure', async () => {
    const t = await createTestApp(dialect, { config: { publicUrl: 'https://bets.example', webUrl: 'https://bets.example/app/' } });
    try {
      const u = await registerAndLogInThroughApi(t.app);
      const res = await t.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: PASSWORD } });
      const c = res.cookies.find((x) => x.name === 'auth_token');
      assert.equal(c?.secure, true);
    } finally {
      await t.close();
    }
  });
});
