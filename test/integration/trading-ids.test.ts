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

  // Ids are safe integers from 1 (issue 22): one no row can have is an invalid request, never a 500.
  test('ids no row can have: cancel, close, detail, record, stats and profile 400 in the error shape, never a 500', async () => {
    const u = await registerAndLogin(t.app);
    const refused = (res: { statusCode: number; json(): object }, what: string) => {
      assert.equal(res.statusCode, 400, what);
      assert.deepEqual(Object.keys(res.json()), ['error'], what);
    };
    for (const id of ['100000000000000000000', '9223372036854775808', '9007199254740992', '0']) {
      refused(await t.app.inject({ method: 'DELETE', url: `/bet/${id}`, headers: { cookie: u.cookie } }), `DELETE ${id}`);
      refused(await t.app.inject({ method: 'GET', url: `/bet/${id}` }), `GET ${id}`);
    }
    for (const path of ['/record/user/9223372036854776000', '/user/9223372036854776000/stats', '/user/9223372036854776000/public']) {
      refused(await t.app.inject({ method: 'GET', url: path }), path);
    }
    // The largest id a row can have is well formed: no such bet.
    const last = await t.app.inject({ method: 'DELETE', url: `/bet/${Number.MAX_SAFE_INTEGER}`, headers: { cookie: u.cookie } });
    assert.equal(last.statusCode, 404, last.body);
    for (const bet_id of [1e20, 0, -5]) {
      const close = await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: u.cookie }, payload: { bet_id } });
      assert.equal(close.statusCode, 400, `close ${bet_id}: ${close.body}`);
    }
  });
});
