// Price alerts in Chromium, at both sizes, against the service built in this
// process with an injected clock: the alert button of an instrument on the
// markets page opens the alerts page with its ticker filled in; an alert set
// there is listed, fires at the quote the watcher evaluates (shown with that
// quote's price) and can be removed; the navigation reaches the page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { FakeClock } from '../../src/lib/clock.js';
import { evaluateAlerts } from '../../src/services/price-alerts.js';
import { formatPrice } from '../../web/src/lib/format.js';
import { ApiUser, assertNoSidewaysScroll, Guard, launchBrowser, clickNavItem, navItem, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

// Monday 30 November 2026, 10:00 in New York: NYSE open.
const MONDAY_OPEN = '2026-11-30T15:00:00Z';

describe('Price alerts in Chromium (injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse(MONDAY_OPEN));
  let server: InProcessServer;
  let browser: Browser;
  let baseUrl: string;

  before(async () => {
    server = await startInProcessServer(clock);
    baseUrl = server.baseUrl;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(viewport: 'desktop' | 'phone', fn: (page: Page) => Promise<void>): Promise<void> {
    const user = await ApiUser.create(baseUrl, `alr_${viewport.slice(0, 2)}${Date.now().toString(36)}`);
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: baseUrl, viewport });
    try {
      await user.signIn(context);
      await fn(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(width <= 0, `the page scrolls sideways by ${width} px`);
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }
  }

  test("desktop: an instrument's alert button, an alert already met fires at the quote in force, then removed", async () => {
    await withPage('desktop', async (page) => {
      await page.goto('/app/markets');
      await page.getByLabel('Search by name or symbol').fill('apple');
      const list = page.getByTestId('instrument-list');
      await list.getByRole('button', { name: 'AAPL' }).waitFor();
      // Every listed instrument has its alert button. The list redraws as the search narrows it (AAPL is listed
      // before and after): rows and buttons are counted together until one count of each agrees.
      const alertLinks = list.getByRole('link', { name: /^Set a price alert on / });
      let rows = await list.getByRole('listitem').count();
      let links = await alertLinks.count();
      for (let i = 0; i < 50 && links !== rows; i++) {
        await page.waitForTimeout(100);
        rows = await list.getByRole('listitem').count();
        links = await alertLinks.count();
      }
      assert.ok(rows > 0);
      assert.equal(links, rows);
      await list.getByRole('link', { name: 'Set a price alert on AAPL' }).click();
      await page.waitForURL(/\/app\/alerts\?ticker=AAPL$/);
      assert.equal(await page.getByLabel('Ticker').inputValue(), 'AAPL');
      await page.getByLabel('When').selectOption('below');
      await page.getByLabel('Price', { exact: true }).fill('1000000');
      await page.getByRole('button', { name: 'Set alert' }).click();
      await page.getByRole('status').filter({ hasText: 'Alert set: AAPL at or below 1,000,000' }).waitFor();
      const row = page.getByTestId('alert-row');
      await row.filter({ hasText: 'Active since' }).waitFor();
      assert.equal(await page.getByTestId('alert-capacity').textContent(), 'Active 1/20');
      await screenshot(page, 'alerts-active-desktop');

      // The watcher's pass (the trigger engine's call): the quote in force when it was set meets it.
      const quote = await server.app.ctx.prices.quote('AAPL');
      assert.equal(await evaluateAlerts(server.app.ctx, 'AAPL', clock.now()), 1);
      await page.reload();
      await page
        .getByTestId('alert-fired')
        .filter({ hasText: `Fired at ${formatPrice(quote.price)}` })
        .waitFor();
      assert.equal(await page.getByTestId('alert-capacity').textContent(), 'Active 0/20');
      await screenshot(page, 'alerts-fired-desktop');

      await page.getByRole('button', { name: /^Remove the alert: AAPL at or below/ }).click();
      await page.getByText('No alerts yet.').waitFor();
      // The navigation leads here.
      await clickNavItem(page, 'Markets');
      await clickNavItem(page, 'Alerts');
      await page.getByRole('heading', { name: 'Price alerts' }).waitFor();
    });
  });

  test('phone: through the menu to the alerts page, a move alert on a crypto pair from the ticker panel', async () => {
    await withPage('phone', async (page) => {
      await page.goto('/app/markets?ticker=BTC-USD');
      await page.getByText('Trades around the clock.').waitFor();
      await page
        .getByTestId('instrument-list')
        .getByRole('link', { name: /^Set a price alert on / })
        .first()
        .waitFor();
      await assertNoSidewaysScroll(page, 'the markets page with its alert buttons');
      await screenshot(page, 'markets-alert-buttons-phone');
      await page.getByRole('link', { name: 'Set a price alert on BTC-USD' }).last().click();
      await page.waitForURL(/\/app\/alerts\?ticker=BTC-USD$/);
      await page.getByLabel('When').selectOption('move');
      await page.getByLabel('Move (%)').fill('5');
      await page.getByRole('button', { name: 'Set alert' }).click();
      await page.getByTestId('alert-row').filter({ hasText: 'BTC-USD moves 5 % either way since its previous close' }).waitFor();
      await screenshot(page, 'alerts-phone');
      // The menu reaches the page from elsewhere.
      await page.goto('/app/portfolio');
      await clickNavItem(page, 'Alerts');
      await page.getByTestId('alert-row').first().waitFor();
      assert.equal(await page.getByTestId('alert-row').count(), 1);
    });
  });
});
