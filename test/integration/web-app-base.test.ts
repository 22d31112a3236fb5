// One build of the web app runs under any WEB_URL: it names its assets relative
// to the page, and the service adds <base href> with the mount path when it
// serves index.html.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { withBase } from '../../src/http/web-app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('<base href> in the served page', () => {
  test('first in the head, with or without attributes on <head>', () => {
    assert.equal(withBase('<html><head><title>x</title></head></html>', '/app/'), '<html><head><base href="/app/"><title>x</title></head></html>');
    assert.equal(withBase('<head lang="en">\n<meta>', '/w/'), '<head lang="en"><base href="/w/">\n<meta>');
  });

  test('after the doctype when the page has no head', () => {
    assert.equal(withBase('<!doctype html><div id="root"></div>', '/app/'), '<!doctype html><base href="/app/"><div id="root"></div>');
    assert.equal(withBase('<div></div>', '/app/'), '<base href="/app/"><div></div>');
  });

  test('the path is escaped for the attribute', () => {
    assert.equal(withBase('<head>', '/a&b"c/'), '<head><base href="/a&amp;b&quot;c/">');
  });
});

describe('a build with relative asset paths, mounted at another WEB_URL path', () => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><html><head><script type="module" src="./assets/main-abc123.js"></script></head><body><div id="root"></div></body></html>',
    );
    fs.writeFileSync(path.join(dist, 'assets', 'main-abc123.js'), 'console.log("app")');
    const base = testConfig();
    t = await createTestApp('sqlite', { config: { webUrl: `${base.publicUrl}/trade/` }, deps: { webDistDir: dist } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('the page and its deep links name the mount path, and the asset they reference from there is served', async () => {
    for (const url of ['/trade/', '/trade/bet/42', '/trade/user/7/history']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      const base = /<head><base href="([^"]+)">/.exec(res.body)?.[1];
      assert.equal(base, '/trade/', url);
      // As a browser resolves the script's src: against the base, not the page's own path.
      const src = /src="([^"]+)"/.exec(res.body)?.[1] ?? '';
      const asset = new URL(src, new URL(base ?? '', `http://localhost${url}`)).pathname;
      assert.equal(asset, '/trade/assets/main-abc123.js', url);
      const js = await t.app.inject({ method: 'GET', url: asset });
      assert.equal(js.statusCode, 200, asset);
    }
  });

  test('the default path is not mounted', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app/' });
    assert.equal(res.statusCode, 404);
  });
});
