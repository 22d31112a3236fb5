import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';

forEachDialect('bet ids the database cannot hold', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('name no bet or user: cancel 404, close 400, detail, record, stats and profile 404, never a 500', async () => {
    const u = await registerAndLogin(t.app);
    for (const id of ['100000000000000000000', '9223372036854775808', '0']) {
      const del = await t.app.inject({ method: 'DELETE', url: `/bet/${id}`, headers: { cookie: u.cookie } });
      assert.equal(del.statusCode, 404, `DELETE ${id}: ${del.body}`);
      const detail = await t.app.inject({ method: 'GET', url: `/bet/${id}` });
      assert.equal(detail.statusCode, 404, `GET ${id}`);
    }
    for (const path of ['/record/user/9223372036854776000', '/user/9223372036854776000/stats', '/user/9223372036854776000/public']) {
      assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 404, path);
    }
    for (const bet_id of [1e20, 0, -5]) {
      const close = await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: u.cookie }, payload: { bet_id } });
      assert.equal(close.statusCode, 400, `close ${bet_id}: ${close.body}`);
    }
  });
});
