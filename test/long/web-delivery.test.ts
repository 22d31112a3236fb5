// How the real build reaches Chromium (issue 24, item 11): the bundle split by
// route, so the log-in page does not load the chart library; every script and
// stylesheet sent precompressed; no source map published; a favicon; the
// title and link-preview tags of a public page in the HTML the server sends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { BrowserSuite, ROOT, skipReason } from '../browser/harness.js';

if (skipReason) console.log(skipReason);

const DIST = path.join(ROOT, 'web', 'dist');
const CHARTS = /\/assets\/charts-[\w-]+\.js$/;

/** Every answer the page receives from the app's own files, by path. */
function recordAssets(page: Page): Map<string, Response> {
  const seen = new Map<string, Response>();
  page.on('response', (res) => {
    const { pathname } = new URL(res.url());
    if (pathname.startsWith('/app/') && /\.\w+$/.test(pathname)) seen.set(pathname, res);
  });
  return seen;
}

describe('delivery of the web app in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('the build: the chart library is a chunk of its own; every script and stylesheet has .br and .gz beside it; maps are kept, unreferenced', () => {
    const assets = fs.readdirSync(path.join(DIST, 'assets'));
    assert.ok(
      assets.some((f) => CHARTS.test(`/assets/${f}`)),
      'a charts chunk',
    );
    const code = assets.filter((f) => /\.(js|css)$/.test(f));
    assert.ok(code.length > 5, `the bundle is split: ${code.join(' ')}`);
    for (const f of code) {
      assert.ok(assets.includes(`${f}.br`) && assets.includes(`${f}.gz`), `${f} precompressed`);
      assert.doesNotMatch(fs.readFileSync(path.join(DIST, 'assets', f), 'utf8'), /sourceMappingURL/, f);
    }
    assert.ok(
      assets.some((f) => f.endsWith('.js.map')),
      'source maps stay beside the build',
    );
  });

  test('the log-in page loads neither the chart library nor any page it does not show; the files come brotli-compressed; a favicon', async () => {
    await suite.withPage(async (page) => {
      const assets = recordAssets(page);
      await page.goto('/app/login');
      await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
      await page.waitForLoadState('networkidle');
      const loaded = [...assets.keys()];
      assert.ok(loaded.some((p) => p.endsWith('.js')));
      assert.deepEqual(
        loaded.filter((p) => CHARTS.test(p) || /\/assets\/(markets|bet|profile|portfolio|settings)-/.test(p)),
        [],
        `the log-in page loaded ${loaded.join(' ')}`,
      );
      for (const [p, res] of assets) {
        if (!/\.(js|css)$/.test(p)) continue;
        assert.equal((await res.allHeaders())['content-encoding'], 'br', p);
      }
      const icon = await page.locator('link[rel=icon]').getAttribute('href');
      assert.ok(icon);
      const iconRes = await page.request.get(new URL(icon, page.url()).href);
      assert.equal(iconRes.status(), 200);
      assert.match(iconRes.headers()['content-type'] ?? '', /image\/svg\+xml/);
    });
  });

  test('a page with a chart loads the chart library when it is shown', async () => {
    const user = await suite.user('chart');
    const bet = (await user.call('POST', '/bet/open', { ticker: 'BTC-USD', direction: 'LONG' })).json as { bet_id: number };
    await suite.withPage(async (page, context) => {
      await user.signIn(context);
      const assets = recordAssets(page);
      await page.goto(`/app/bet/${bet.bet_id}`);
      await page.getByTestId('price-chart').waitFor();
      assert.ok(
        [...assets.keys()].some((p) => CHARTS.test(p)),
        [...assets.keys()].join(' '),
      );
    });
  });

  test('source maps are not served', async () => {
    const map = fs.readdirSync(path.join(DIST, 'assets')).find((f) => f.endsWith('.js.map'));
    assert.ok(map);
    const res = await fetch(`${suite.server.appUrl}assets/${map}`);
    assert.equal(res.status, 404);
    assert.doesNotMatch(await res.text(), /"mappings"/);
  });

  test("a shared profile link's HTML has the trader's name as its title and preview, with no JavaScript run", async () => {
    const user = await suite.user('shared');
    const res = await fetch(`${suite.server.appUrl}user/${user.id}`);
    const html = await res.text();
    assert.ok(html.includes(`<title>${user.username} on Paper Bets</title>`), html);
    assert.ok(html.includes(`<meta property="og:title" content="${user.username} on Paper Bets">`));
    assert.match(html, /<meta name="twitter:card" content="summary">/);
    // The app then keeps the title on the page's heading.
    await suite.withPage(async (page) => {
      await page.goto(`/app/user/${user.id}`);
      await page.waitForFunction((t) => document.title === t, `${user.username} · Paper Bets`);
    });
  });
});
