// Issue 24, item 4: with a loopback PUBLIC_URL, the browser's pages opened on
// another loopback name of the same port move to PUBLIC_URL's host (where the
// session cookie lives); API paths never redirect.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isLoopbackHost, loopbackRedirect } from '../../src/http/loopback.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';

function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
  return dir;
}

async function appAt(publicUrl: string, dist: string): Promise<TestApp> {
  return createTestApp('sqlite', { config: { publicUrl, webUrl: `${publicUrl}/app/` }, deps: { webDistDir: dist } });
}

describe('loopback names redirect to PUBLIC_URL for the browser pages', () => {
  let dist: string;
  let local: TestApp;
  let numeric: TestApp;
  let remote: TestApp;
  before(async () => {
    dist = fakeBuild();
    local = await appAt('http://localhost:3000', dist);
    numeric = await appAt('http://127.0.0.1:3000', dist);
    remote = await appAt('https://bets.example', dist);
  });
  after(async () => {
    await Promise.all([local.close(), numeric.close(), remote.close()]);
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const get = (t: TestApp, host: string, url: string, method: 'GET' | 'HEAD' | 'POST' = 'GET') => t.app.inject({ method, url, headers: { host } });

  test('the web app, the local payment pages and the chat link page move to PUBLIC_URL’s host, query and all', async () => {
    for (const [url, host] of [
      ['/app/', '127.0.0.1:3000'],
      ['/app', '127.0.0.1:3000'],
      ['/app/plans?checkout=success', '127.0.0.1:3000'],
      ['/app/bet/42', '[::1]:3000'],
      ['/pay/local/checkout/abc', '127.0.0.1:3000'],
      ['/pay/local/portal', '127.0.0.2:3000'],
      ['/chat/local/link/some-code', '127.0.0.1:3000'],
    ] as const) {
      const res = await get(local, host, url);
      assert.equal(res.statusCode, 307, `${host}${url}: ${res.statusCode}`);
      assert.equal(res.headers.location, `http://localhost:3000${url}`);
    }
    const head = await get(local, '127.0.0.1:3000', '/app/', 'HEAD');
    assert.equal(head.statusCode, 307);
    // And the other way round when PUBLIC_URL names 127.0.0.1.
    const back = await get(numeric, 'localhost:3000', '/app/portfolio');
    assert.equal(back.statusCode, 307);
    assert.equal(back.headers.location, 'http://127.0.0.1:3000/app/portfolio');
  });

  test('API paths, writes, PUBLIC_URL’s own host, other ports and other hosts are answered where they arrive', async () => {
    const user = await registerAndLogin(local.app);
    for (const url of ['/', '/me', '/leaderboard', '/openapi.json', '/api/pay/plans', '/chat/status', '/application']) {
      const res = await local.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:3000', cookie: user.cookie } });
      assert.notEqual(res.statusCode, 307, url);
      assert.equal(res.headers.location, undefined, url);
    }
    const form = await get(local, '127.0.0.1:3000', '/pay/local/checkout/abc/confirm', 'POST');
    assert.notEqual(form.statusCode, 307, 'a form post is never redirected');
    assert.equal((await get(local, 'localhost:3000', '/app/')).statusCode, 200);
    assert.equal((await get(local, '127.0.0.1:4000', '/app/')).statusCode, 200, 'another port is another server');
    assert.equal((await get(local, 'bets.lan:3000', '/app/')).statusCode, 200, 'not a loopback name');
    assert.equal((await get(remote, '127.0.0.1', '/app/')).statusCode, 200, 'PUBLIC_URL not loopback: no redirect');
  });

  test('the rule itself', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['localhost.example', '10.0.0.1', '[::2]', '128.0.0.1', 'example.com']) assert.ok(!isLoopbackHost(h), h);
    const req = (url: string, host: string, method = 'GET') => ({ method, url, host });
    assert.equal(loopbackRedirect('http://localhost', '/app/', req('/app/', '127.0.0.1')), 'http://localhost/app/');
    assert.equal(loopbackRedirect('http://localhost', '/app/', req('/app/', '127.0.0.1:80')), 'http://localhost/app/');
    assert.equal(loopbackRedirect('http://localhost', '/app/', req('/app/', '127.0.0.1:8080')), null);
    assert.equal(loopbackRedirect('http://localhost:3000', null, req('/app/', '127.0.0.1:3000')), null, 'no app mounted here');
    assert.equal(loopbackRedirect('http://localhost:3000', '/app/', req('/bet/open', '127.0.0.1:3000', 'POST')), null);
  });
});
