// Public reads everyone sees alike may be kept a second by a proxy; the
// caller's own answers and the health check never.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

forEachDialect('Cache-Control', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('the leaderboard, public profiles and public bet pages: public for a second; session answers and GET /: no-store', async () => {
    const u = await registerAndLogin(t.app, 'cc');
    const opened = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: u.cookie },
      payload: { ticker: 'AAPL', direction: 'LONG' },
    });
    assert.equal(opened.statusCode, 200, opened.body);
    for (const url of [
      '/leaderboard',
      '/leaderboard?period=7d',
      '/leaderboard/ranked',
      '/leaderboard/ranked?period=7d',
      `/user/${u.id}/public`,
      `/bet/${opened.json().bet_id}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['cache-control'], 'public, max-age=1', url);
    }
    // Even with a session cookie these answers are everyone's.
    const withCookie = await t.app.inject({ method: 'GET', url: '/leaderboard', headers: { cookie: u.cookie } });
    assert.equal(withCookie.headers['cache-control'], 'public, max-age=1');
    for (const url of ['/portfolio', '/history', '/feed', '/me']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { cookie: u.cookie } });
      assert.equal(res.headers['cache-control'], 'no-store', url);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/' })).headers['cache-control'], 'no-store');
    // A missing profile is not kept anywhere.
    const missing = await t.app.inject({ method: 'GET', url: '/user/999999999/public' });
    assert.equal(missing.statusCode, 404);
    assert.notEqual(missing.headers['cache-control'], 'public, max-age=1');
  });
});
