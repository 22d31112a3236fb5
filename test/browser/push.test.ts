// The installable app and Web Push in Chromium, at both sizes. Chromium cannot
// subscribe without its vendor's push service, so the page's PushManager is
// stubbed with a subscription on the local push service
// (test/helpers/fake-push.ts). The rest is real: the settings page registers
// the device with the kinds chosen, the server's outbox delivers a followed
// trader's bet to the local push service (which checks the VAPID signature
// and decrypts it), and that payload is handed to the service worker through
// the DevTools protocol (ServiceWorker.deliverPushMessage), which shows it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { FakePushService, type FakeSubscription } from '../helpers/fake-push.js';
import { BrowserSuite, screenshot, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

/**
 * Replaces PushManager's subscribe and getSubscription with a subscription on
 * the local push service (kept across reloads). A string, not a function: the
 * test runner's transform would add helpers the page does not have.
 */
function stubPushManager(sub: FakeSubscription): string {
  return `(() => {
    const sub = ${JSON.stringify(sub)};
    const KEY = 'test-push-subscribed';
    const make = () => ({
      endpoint: sub.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true },
      toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
      unsubscribe: async () => { localStorage.removeItem(KEY); return true; },
    });
    PushManager.prototype.subscribe = async () => { localStorage.setItem(KEY, '1'); return make(); };
    PushManager.prototype.getSubscription = async () => (localStorage.getItem(KEY) ? make() : null);
  })();`;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits for the service worker the app registers once loaded (a production build only),
 * failing with a reason rather than hanging when it never comes.
 */
async function workerReady(page: Page): Promise<void> {
  const ready = await page.evaluate(() =>
    Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]),
  );
  assert.ok(ready, 'the service worker never took control: web/dist must be a production build (npm run build:web)');
}

describe('installable app and push notices in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  const push = new FakePushService();
  before(async () => {
    await push.start();
    await suite.start({ PUSH_EXTRA_ORIGINS: push.origin });
    push.expectedKey = ((await (await fetch(`${suite.server.baseUrl}/push/key`)).json()) as { public_key: string }).public_key;
  });
  after(async () => {
    await suite.stop();
    await push.stop();
  });

  const openSettings = async (page: Page, context: BrowserContext, sub: FakeSubscription) => {
    await context.grantPermissions(['notifications'], { origin: suite.server.baseUrl });
    await context.addInitScript(stubPushManager(sub));
    await page.goto('/app/settings');
    // The service worker takes control once installed (skipWaiting and clients.claim).
    await workerReady(page);
  };

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`${viewport}: push is turned on for this device with its kinds, and a followed trader's bet is shown as a notification`, async () => {
      const trader = await suite.user(`pt${viewport[0]}`);
      const fan = await suite.user(`pf${viewport[0]}`);
      assert.equal((await fan.call('POST', '/follow', { followed_id: trader.id, action: 'follow' })).status, 200);
      const sub = push.subscribe();
      await suite.withPage(
        async (page, context) => {
          await fan.signIn(context);
          await openSettings(page, context, sub);
          const card = page.getByRole('form', { name: 'Notices on this device' });
          await card.waitFor();
          assert.match(await page.getByTestId('push-state').innerText(), /off on this device/);
          await card.getByLabel('Your leagues: start, daily standing, result').uncheck();
          await card.getByRole('button', { name: 'Turn on for this device' }).click();
          await page.getByText('This device receives push notices.').waitFor();
          await screenshot(page, `push-settings-${viewport}`);

          const devices = (await fan.call('GET', '/push/subscriptions')).json as { devices: Array<{ endpoint: string; kinds: string[] }> };
          assert.equal(devices.devices.length, 1);
          assert.equal(devices.devices[0]!.endpoint, sub.endpoint);
          assert.deepEqual(devices.devices[0]!.kinds, ['bet_cancelled', 'bet_exit', 'bet_opened', 'bet_settled', 'price_alert']);

          // After a reload the page knows this device and its kinds.
          await page.reload();
          await page.getByText('This device receives push notices.').waitFor();
          assert.equal(await card.getByLabel('Your leagues: start, daily standing, result').isChecked(), false);
          assert.equal(await card.getByLabel('A trader you follow opens a bet').isChecked(), true);

          // The trader opens a bet: the server's outbox sends it to the push service, signed and encrypted.
          const opened = (await trader.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).json as { bet_id: number };
          const message = await until('the push message', async () => push.messagesTo(sub.endpoint)[0]);
          assert.deepEqual(push.refused, []);
          assert.equal(message.payload.kind, 'bet_opened');

          // Chromium's push service is not there: hand the decrypted payload to the service worker.
          const cdp = await context.newCDPSession(page);
          const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
          const versions: Array<{ registrationId: string; status: string }> = [];
          cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: Array<{ registrationId: string; scopeURL: string }> }) => {
            registrations.push(...e.registrations);
          });
          cdp.on('ServiceWorker.workerVersionUpdated', (e: { versions: Array<{ registrationId: string; status: string }> }) => {
            versions.push(...e.versions);
          });
          await cdp.send('ServiceWorker.enable');
          const reg = await until('the service worker registration', async () =>
            registrations.find((r) => r.scopeURL === `${suite.server.baseUrl}/app/`),
          );
          // A push handed to a registration whose worker is not yet activated is dropped (a loaded machine shows it).
          await until('the service worker activated', async () =>
            versions.some((v) => v.registrationId === reg.registrationId && v.status === 'activated'),
          );
          await cdp.send('ServiceWorker.deliverPushMessage', {
            origin: suite.server.baseUrl,
            registrationId: reg.registrationId,
            data: JSON.stringify(message.payload),
          });
          const shown = await until('the notification', () =>
            page.evaluate(async () => {
              const list = await (await navigator.serviceWorker.ready).getNotifications();
              return list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url: string }).url }))[0];
            }),
          );
          assert.equal(shown.title, 'A trader you follow opened a bet');
          assert.match(shown.body, new RegExp(`${trader.username} opened LONG AAPL`));
          assert.equal(shown.tag, `bet-${opened.bet_id}`);
          assert.equal(shown.url, `${suite.server.baseUrl}/app/bet/${opened.bet_id}`);

          // What the service worker cached: the app's own files only, never an API answer.
          await page.goto('/app/portfolio');
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          const cached = await page.evaluate(async () => {
            const urls: string[] = [];
            for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
            return urls;
          });
          assert.ok(cached.length > 0, 'the shell is cached');
          for (const url of cached) assert.ok(url.startsWith(`${suite.server.baseUrl}/app/`), `cached outside the app: ${url}`);
          assert.ok(cached.includes(`${suite.server.baseUrl}/app/`));

          // Turning it off removes the device at the server.
          await page.goto('/app/settings');
          await page.getByRole('button', { name: 'Turn off on this device' }).click();
          await page.getByText('Push notices are off on this device.').waitFor();
          assert.deepEqual(((await fan.call('GET', '/push/subscriptions')).json as { devices: unknown[] }).devices, []);
        },
        { viewport },
      );
    });
  }

  test('the app installs: a manifest with name, icons and start URL; the first visit stays under 130 KiB of compressed JS and CSS', async () => {
    await suite.withPage(async (page) => {
      await page.goto('/app/');
      const href = await page.locator('link[rel="manifest"]').getAttribute('href');
      const manifestUrl = new URL(href!, `${suite.server.baseUrl}/app/`).href;
      assert.equal(manifestUrl, `${suite.server.baseUrl}/app/manifest.webmanifest`);
      const res = await fetch(manifestUrl);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /manifest\+json/);
      const manifest = (await res.json()) as { name: string; start_url: string; display: string; icons: Array<{ src: string; sizes: string }> };
      assert.equal(manifest.name, 'Paper Bets');
      assert.equal(new URL(manifest.start_url, manifestUrl).href, `${suite.server.baseUrl}/app/`);
      assert.equal(manifest.display, 'standalone');
      for (const size of ['192x192', '512x512']) {
        const icon = manifest.icons.find((i) => i.sizes === size)!;
        const img = await fetch(new URL(icon.src, manifestUrl));
        assert.equal(img.status, 200);
        assert.equal(img.headers.get('content-type'), 'image/png');
      }
      const sw = await fetch(`${suite.server.baseUrl}/app/sw.js`);
      assert.equal(sw.status, 200);
      assert.equal(sw.headers.get('cache-control'), 'no-cache', 'a new service worker is picked up at once');

      // Every script and style the first visit fetched, as sent (compressed), and the service worker.
      await workerReady(page);
      const bytes = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => e as PerformanceResourceTiming)
          .filter((e) => /\.(js|css)$/.test(new URL(e.name).pathname))
          .reduce((sum, e) => sum + e.encodedBodySize, 0),
      );
      const swBytes = (await (await fetch(`${suite.server.baseUrl}/app/sw.js`, { headers: { 'accept-encoding': 'br' } })).arrayBuffer()).byteLength;
      assert.ok(bytes > 10_000, `measured ${bytes}`);
      assert.ok(bytes + swBytes < 130 * 1024, `first visit: ${bytes + swBytes} bytes`);
    });
  });
});
