import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

forEachDialect('discovery documents', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { publicUrl: 'https://bets.example', webUrl: 'https://bets.example/app/' } });
  });
  after(() => t.close());
  const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url });

  test('GET / reports health, version and the database', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok', version: '1.0.0', database: 'ok' });
    assert.match(String(res.headers.link), /<https:\/\/bets\.example\/\.well-known\/api-catalog>; rel="api-catalog"/);
  });

  test('api-catalog: RFC 9727 linkset with exactly the SPEC entry fields; HEAD too', async () => {
    const res = await get('/.well-known/api-catalog');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/linkset\+json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['linkset']);
    assert.equal(body.linkset.length, 1);
    const entry = body.linkset[0];
    assert.deepEqual(Object.keys(entry).sort(), ['anchor', 'oauth-protected-resource', 'service-desc', 'service-doc', 'status']);
    assert.equal(entry.anchor, 'https://bets.example/');
    assert.deepEqual(entry['service-desc'], [{ href: 'https://bets.example/openapi.json', type: 'application/openapi+json' }]);
    for (const k of ['service-doc', 'oauth-protected-resource', 'status']) {
      for (const link of entry[k]) {
        assert.deepEqual(Object.keys(link).sort(), ['href', 'type']);
        assert.doesNotThrow(() => new URL(link.href));
      }
    }
    const head = await get('/.well-known/api-catalog', 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.match(String(head.headers.link), /rel="api-catalog"/);
    assert.match(String(head.headers['content-type']), /^application\/linkset\+json/);
  });

  test('oauth-protected-resource: exactly the SPEC fields, empty lists', async () => {
    const res = await get('/.well-known/oauth-protected-resource');
    assert.equal(res.statusCode, 200);
    const m = res.json();
    assert.deepEqual(Object.keys(m).sort(), [
      'authorization_servers',
      'bearer_methods_supported',
      'resource',
      'resource_documentation',
      'resource_name',
      'resource_policy_uri',
      'scopes_supported',
      'service_documentation',
    ]);
    assert.deepEqual([m.authorization_servers, m.scopes_supported, m.bearer_methods_supported], [[], [], []]);
    for (const k of ['resource', 'service_documentation', 'resource_documentation', 'resource_policy_uri']) {
      assert.doesNotThrow(() => new URL(m[k]), k);
    }
    assert.equal(typeof m.resource_name, 'string');
  });

  test('/llms.txt: plain text with the auth flow, the rules for automated clients and the document link', async () => {
    const res = await get('/llms.txt');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /https:\/\/bets\.example\/openapi\.json/);
    assert.match(res.body, /auth_token/);
    assert.match(res.body, /explicit instruction/);
    assert.match(res.body, /Never ask for the cookie value/);
  });

  test('/docs: the human API reference, served locally', async () => {
    const res = await get('/docs');
    const page = res.statusCode === 302 ? await get(String(res.headers.location)) : res;
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.doesNotMatch(page.body, /https?:\/\/(cdn|unpkg|cdnjs)\./);
  });
});
