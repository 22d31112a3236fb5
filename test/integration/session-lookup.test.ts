// The session lookup runs on every request with a session, prepared once
// (src/db/prepared.ts): it must still read the table on every call.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findLiveSession } from '../../src/repositories/sessions.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogInThroughApi, type TestApp } from '../helpers/app.js';

forEachDialect('session lookup', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('finds a live session, not an expired or unknown one', async () => {
    const u = await registerAndLogInThroughApi(t.app);
    const row = await t.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal((await findLiveSession(t.ctx.db, row.id, row.expires_at - 1))?.user_id, u.id);
    assert.equal(await findLiveSession(t.ctx.db, row.id, row.expires_at), undefined);
    assert.equal(await findLiveSession(t.ctx.db, 'nope', 0), undefined);
    // Logout revokes at once: the precompiled lookup reads the table every time.
    assert.equal((await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).statusCode, 200);
    await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie } });
    assert.equal((await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).statusCode, 401);
  });
});
