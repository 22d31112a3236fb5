import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { webMountPath } from '../../src/http/web-app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><div id="root"></div><script type="module" src="/app/assets/main-abc123.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'main-abc123.js'), 'console.log("app")');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('web app served at WEB_URL', () => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = fakeBuild();
    t = await createTestApp('sqlite', { deps: { webDistDir: dist } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('/app/ answers the page, revalidated on each load', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /id="root"/);
    assert.equal(res.headers['cache-control'], 'no-cache');
  });

  test('/app redirects to /app/, keeping the query', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app?x=1' });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/app/?x=1');
  });

  test('deep links fall back to the page so the client router takes over', async () => {
    for (const url of ['/app/portfolio', '/app/bet/42', '/app/user/7?offset=100']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /id="root"/, url);
    }
  });

  test('hashed assets are served and cached for good; other files revalidate', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/app/assets/main-abc123.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    assert.match(String(js.headers['cache-control']), /immutable/);
    const icon = await t.app.inject({ method: 'GET', url: '/app/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['cache-control'], 'no-cache');
  });

  test('a missing asset is a 404 in the Error shape, never the page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app/assets/gone-999.js' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['error']);
  });

  test('no path escapes the build folder', async () => {
    for (const url of ['/app/../package.json', '/app/%2e%2e/package.json', '/app/assets/..%2f..%2fpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.doesNotMatch(res.body, /"dependencies"/, url);
    }
  });

  test('the API and the OpenAPI document are untouched by the app routes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const paths = Object.keys(res.json().paths);
    assert.ok(!paths.some((p) => p.startsWith('/app')), paths.join(','));
  });
});

describe('web app not built', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { deps: { webDistDir: path.join(os.tmpdir(), 'no-such-web-dist') } });
  });
  after(() => t.close());

  test('/app/ and deep links answer a clear 503 page, and the API still works', async () => {
    for (const url of ['/app/', '/app/portfolio']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 503, url);
      assert.match(res.body, /npm run build:web/);
    }
    const api = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(api.statusCode, 200);
  });
});

describe('mount path of WEB_URL', () => {
  test('same-origin path is mounted; another origin or the root is not', () => {
    assert.equal(webMountPath('http://localhost:3000/app/', 'http://localhost:3000'), '/app/');
    assert.equal(webMountPath('http://localhost:3000/web', 'http://localhost:3000'), '/web/');
    assert.equal(webMountPath('https://app.example.com/app/', 'http://localhost:3000'), null);
    assert.equal(webMountPath('http://localhost:3000/', 'http://localhost:3000'), null);
  });
});
