// Shared answers (the leaderboard, public profiles) are serialized and
// compressed once per answer, not once per request: every encoding a client
// may ask for carries the same JSON, as the route's schema serializes it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { compressText, ONCE, PER_REQUEST, preferredEncoding } from '../../src/http/compression.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

test('Accept-Encoding is negotiated as @fastify/compress does: brotli first, q-values, q=0 refuses, * and x-gzip', () => {
  assert.equal(preferredEncoding('br, gzip'), 'br');
  assert.equal(preferredEncoding('gzip, deflate, br'), 'br');
  assert.equal(preferredEncoding('gzip'), 'gzip');
  assert.equal(preferredEncoding('br;q=0.5, gzip'), 'gzip');
  assert.equal(preferredEncoding('br;q=0, gzip;q=0'), null);
  assert.equal(preferredEncoding('identity'), null);
  assert.equal(preferredEncoding('x-gzip'), 'gzip');
  assert.equal(preferredEncoding('*'), 'gzip');
  assert.equal(preferredEncoding(undefined), null);
});

forEachDialect('shared answer bytes', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('plain, brotli and gzip answers of the leaderboard and a profile decode to the same JSON; small answers are sent plain', async () => {
    // Enough closed bets for answers above the 1 KB compression threshold.
    for (let i = 0; i < 20; i++) {
      const u = await registerAndLogin(t.app, 'sb');
      const opened = await t.app.inject({
        method: 'POST',
        url: '/bet/open',
        headers: { cookie: u.cookie },
        payload: { ticker: 'AAPL', direction: 'LONG' },
      });
      assert.equal(opened.statusCode, 200, opened.body);
      const closed = await t.app.inject({
        method: 'POST',
        url: '/bet/close',
        headers: { cookie: u.cookie },
        payload: { bet_id: opened.json().bet_id },
      });
      assert.equal(closed.statusCode, 200, closed.body);
    }
    const someone = (await t.app.inject({ method: 'GET', url: '/leaderboard' })).json()[0].id;
    for (const url of ['/leaderboard', '/leaderboard?period=7d', `/user/${someone}/public`]) {
      const plain = await t.app.inject({ method: 'GET', url });
      assert.equal(plain.statusCode, 200, url);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.match(String(plain.headers['content-type']), /^application\/json/);
      const json = plain.json();
      const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } });
      const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      if (plain.body.length < 1024) {
        assert.equal(br.headers['content-encoding'], undefined, url);
        continue;
      }
      assert.equal(br.headers['content-encoding'], 'br', url);
      assert.equal(br.headers.vary, 'accept-encoding');
      assert.equal(br.headers['cache-control'], 'public, max-age=1');
      assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), json, url);
      assert.equal(gz.headers['content-encoding'], 'gzip', url);
      assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), json, url);
      assert.equal(Number(br.headers['content-length']), br.rawPayload.length);
    }
    // The leaderboard is above the threshold here, so the loop above compared compressed answers.
    assert.ok((await t.app.inject({ method: 'GET', url: '/leaderboard' })).body.length >= 1024);
  });

  test("a session's own answer is compressed on each request at the cheap levels, a shared one at the levels paid once; both decode", async () => {
    // The users of the test above, each with a closed bet: followed, they fill a /feed page above the threshold.
    const board = (await t.app.inject({ method: 'GET', url: '/leaderboard' })).json() as Array<{ id: number }>;
    const reader = await registerAndLogin(t.app, 'fr');
    for (const { id } of board) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/follow',
        headers: { cookie: reader.cookie },
        payload: { followed_id: id, action: 'follow' },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const get = (url: string, encoding?: string) =>
      t.app.inject({ method: 'GET', url, headers: { cookie: reader.cookie, ...(encoding ? { 'accept-encoding': encoding } : {}) } });
    const plain = await get('/feed');
    assert.equal(plain.statusCode, 200, plain.body);
    assert.ok(plain.rawPayload.length >= 1024, `the feed page is above the threshold (${plain.rawPayload.length} bytes)`);
    const br = await get('/feed', 'br, gzip');
    const gz = await get('/feed', 'gzip');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(br.headers['cache-control'], 'no-store');
    assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), plain.json());
    assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), plain.json());
    // The same bytes as the cheap levels make of the plain answer: those are the levels used.
    assert.ok(br.rawPayload.equals(brotliCompressSync(plain.rawPayload, PER_REQUEST.brotli)), 'brotli at the per-request level');
    assert.ok(gz.rawPayload.equals(gzipSync(plain.rawPayload, PER_REQUEST.gzip)), 'gzip at the per-request level');

    const shared = await t.app.inject({ method: 'GET', url: '/leaderboard' });
    const sharedBr = await t.app.inject({ method: 'GET', url: '/leaderboard', headers: { 'accept-encoding': 'br' } });
    assert.equal(sharedBr.headers['content-encoding'], 'br');
    assert.ok(sharedBr.rawPayload.equals(compressText('br', shared.rawPayload, ONCE)), 'brotli at the level paid once');
  });
});
