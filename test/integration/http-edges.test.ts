import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

forEachDialect('HTTP edges: bad input and headers', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
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
    const asNumber = await raw('{"email":"a@b.test","password":12345678901234567}');
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

  test('security headers are set: the short API set on JSON (answers and errors), text and styles, the page set on HTML and scripts', async () => {
    for (const url of ['/', '/nope']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
      assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin', url);
      assert.equal(res.headers['referrer-policy'], undefined, url);
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(String(docs.headers['content-type']), /text\/html/);
    assert.match(String(docs.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(docs.headers['referrer-policy'], 'no-referrer');
    assert.equal(docs.headers['x-content-type-options'], 'nosniff');
    // Plain text and styles are never run: the short set. A script may be (a worker, under its own CSP): the page set.
    for (const url of ['/llms.txt', '/docs/static/index.css']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['referrer-policy'], undefined, url);
    }
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/oauth2-redirect.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-security-policy']), /default-src 'self'/);
  });
});
