import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, uniqueName } from '../helpers/app.js';

forEachDialect('HTTP edges: bad input, cross-site, limits', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, {
      config: { rateLimits: { enabled: true, authPerMinute: 1000, loginFailuresBeforeDelay: 3, publicPerMinute: 1000 } },
    });
  });
  after(() => t.close());

  const raw = (payload: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/login', payload, headers: { 'content-type': contentType } });

  const onlyError = (body: string) => {
    const j = JSON.parse(body);
    assert.deepEqual(Object.keys(j), ['error']);
    assert.equal(typeof j.error, 'string');
    assert.doesNotMatch(j.error, /at .*\.(ts|js):\d+/);
  };

  test('malformed JSON → 400 Error', async () => {
    const res = await raw('{"email": ');
    assert.equal(res.statusCode, 400);
    onlyError(res.body);
  });

  test('__proto__ and constructor keys → 400', async () => {
    const a = await raw('{"email":"a@b.test","password":"x","__proto__":{"admin":true}}');
    assert.equal(a.statusCode, 400);
    onlyError(a.body);
    const b = await raw('{"email":"a@b.test","password":"x","constructor":{"prototype":{"admin":true}}}');
    assert.equal(b.statusCode, 400);
    onlyError(b.body);
  });

  test('non-JSON content types → 415', async () => {
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await raw('email=a%40b.test&password=x', ct);
      assert.equal(res.statusCode, 415, ct);
      onlyError(res.body);
    }
  });

  test('a body over the limit → 413', async () => {
    const res = await raw(JSON.stringify({ email: 'a@b.test', password: 'x'.repeat(70 * 1024) }));
    assert.equal(res.statusCode, 413);
    onlyError(res.body);
  });

  test('no coercion of JSON bodies: "10" or [10] is not a string/number swap', async () => {
    const asNumber = await raw(JSON.stringify({ email: 'a@b.test', password: 12345678901234567 }));
    assert.equal(asNumber.statusCode, 400);
    const asArray = await raw(JSON.stringify({ email: ['a@b.test'], password: 'x' }));
    assert.equal(asArray.statusCode, 400);
    onlyError(asArray.body);
  });

  test('unknown routes → 404 Error', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope' });
    assert.equal(res.statusCode, 404);
    onlyError(res.body);
  });

  test('cross-site POST with the session cookie → 403; same-origin and cookie-less clients work', async () => {
    const u = await registerAndLogin(t.app);
    const evil = await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie, origin: 'https://evil.example' } });
    assert.equal(evil.statusCode, 403);
    onlyError(evil.body);
    const site = await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: u.cookie, 'sec-fetch-site': 'cross-site' } });
    assert.equal(site.statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).statusCode, 200, 'session intact');
    const same = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie: u.cookie, origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(same.statusCode, 200);
  });

  test('security headers are set', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.headers['content-security-policy']);
  });

  test('failed logins per IP+account are throttled with Retry-After, not locked for others', async () => {
    const u = await registerAndLogin(t.app);
    const attempt = (ip: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/login', remoteAddress: ip, payload: { email: u.email, password } });
    for (let i = 0; i < 3; i++) assert.equal((await attempt('10.0.0.9', 'wrong password here!')).statusCode, 401);
    const blocked = await attempt('10.0.0.9', PASSWORD);
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    onlyError(blocked.body);
    assert.equal((await attempt('10.0.0.10', PASSWORD)).statusCode, 200, 'the owner elsewhere is not locked out');
    t.clock.advance(2000);
    assert.equal((await attempt('10.0.0.9', PASSWORD)).statusCode, 200, 'after the delay the right password works');
  });
});

forEachDialect('per-IP limits on /register and /login', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, {
      config: { rateLimits: { enabled: true, authPerMinute: 3, loginFailuresBeforeDelay: 100, publicPerMinute: 1000 } },
    });
  });
  after(() => t.close());

  test('the fourth request in a minute → 429 with Retry-After', async () => {
    const codes: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.app.inject({
        method: 'POST',
        url: '/register',
        remoteAddress: '10.1.1.1',
        payload: { username: uniqueName(), email: `${uniqueName()}@x.test`, password: PASSWORD },
      });
      codes.push(last.statusCode);
    }
    assert.deepEqual(codes, [201, 201, 201, 429]);
    assert.ok(last && last.headers['retry-after']);
    assert.deepEqual(Object.keys(last!.json()), ['error']);
  });
});
