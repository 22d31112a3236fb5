// The Markets page in Chromium against the service built in this process with
// an injected clock (so "market closed" does not depend on when the test runs):
// search by name or symbol, the closed-market line for a stock, none for
// crypto, and a headline price equal to the chart's last point, both from one
// answer of GET /instruments/{symbol}.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { FakeClock } from '../../src/lib/clock.js';
import { formatPrice } from '../../web/src/lib/format.js';
import { ApiUser, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

// Saturday 28 November 2026, 18:00 UTC: NYSE closed since Friday's close; crypto trades.
const SATURDAY = '2026-11-28T18:00:00Z';
// Monday 30 November 2026, 10:00 in New York: NYSE open.
const MONDAY_OPEN = '2026-11-30T15:00:00Z';

describe('Markets page in Chromium (injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse(SATURDAY));
  let server: InProcessServer;
  let browser: Browser;
  let baseUrl: string;
  let user: ApiUser;

  before(async () => {
    server = await startInProcessServer(clock);
    baseUrl = server.baseUrl;
    browser = await launchBrowser();
    user = await ApiUser.create(baseUrl, `mk_${Date.now().toString(36)}`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(viewport: 'desktop' | 'phone', fn: (page: Page) => Promise<void>): Promise<void> {
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: baseUrl, viewport });
    try {
      await user.signIn(context);
      await fn(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(width <= 0, `the page scrolls sideways by ${width} px`);
      await guard.checkAccessibility(page, baseUrl, 'final state');
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }
  }

  /** The page's answer for a symbol's chart, as the headline and the chart got it. */
  function chartAnswer(page: Page, symbol: string) {
    return page
      .waitForResponse((r) => new URL(r.url()).pathname === `/instruments/${symbol}` && r.status() === 200)
      .then((r) => r.json() as Promise<{ instrument: { quote: { price: number } }; points: Array<{ t: string; price: number }> }>);
  }

  test('search by name finds the stock; outside NYSE hours it says "market closed — price as of" its last close', async () => {
    clock.set(SATURDAY);
    await withPage('desktop', async (page) => {
      await page.goto('/app/markets');
      const list = page.getByTestId('instrument-list');
      await list.getByRole('button').first().waitFor();
      await page.getByLabel('Search by name or symbol').fill('apple');
      await list.getByRole('button', { name: 'AAPL' }).waitFor();
      assert.equal(await list.getByRole('button').first().textContent(), 'AAPL');
      const answer = chartAnswer(page, 'AAPL');
      await list.getByRole('button', { name: 'AAPL' }).click();
      const body = await answer;
      const headline = page.getByTestId('ticker-price');
      await headline.filter({ hasText: /\d/ }).waitFor();
      // Friday 27 November 2026's 16:00 New York close, shown in the browser's time zone (UTC here), in the app's one
      // date format (the year only when it is not the browser's current one).
      await page
        .getByTestId('market-closed')
        .filter({ hasText: /Market closed — price as of Fri 27 Nov( 2026)?, 9:00 PM UTC/ })
        .waitFor();
      const last = body.points.at(-1);
      assert.ok(last);
      assert.equal(last.price, body.instrument.quote.price);
      assert.equal(await headline.textContent(), formatPrice(last.price));
      assert.match(
        (await page.getByTestId('chart-last-point').textContent()) ?? '',
        new RegExp(`^Last point: ${formatPrice(last.price).replace('.', '\\.')} at Fri 27 Nov( 2026)?, 9:00 PM UTC$`),
      );
      await screenshot(page, 'markets-closed-desktop');
    });
  });

  test('search by symbol finds the crypto pair, which trades on: no closed-market line', async () => {
    clock.set(SATURDAY);
    await withPage('phone', async (page) => {
      await page.goto('/app/markets');
      await page.getByLabel('Search by name or symbol').fill('btc');
      const answer = chartAnswer(page, 'BTC-USD');
      await page.getByTestId('instrument-list').getByRole('button', { name: 'BTC-USD' }).click();
      const body = await answer;
      await page.getByText('Trades around the clock.').waitFor();
      assert.equal(await page.getByTestId('market-closed').count(), 0);
      assert.equal(await page.getByTestId('ticker-price').textContent(), formatPrice(body.points.at(-1)?.price ?? Number.NaN));
      await screenshot(page, 'markets-crypto-phone');
    });
  });

  test('while NYSE is open the stock shows when it closes, and another range keeps headline = last point', async () => {
    clock.set(MONDAY_OPEN);
    await withPage('desktop', async (page) => {
      const first = chartAnswer(page, 'SPY');
      await page.goto('/app/markets?ticker=SPY');
      await first;
      await page.getByText(/Market open · closes Mon 30 Nov( 2026)?, 9:00 PM UTC/).waitFor();
      assert.equal(await page.getByTestId('market-closed').count(), 0);
      const fiveDays = chartAnswer(page, 'SPY');
      await page.getByRole('button', { name: '5D' }).click();
      const body = await fiveDays;
      await page.getByRole('button', { name: '5D', pressed: true }).waitFor();
      await page
        .getByTestId('chart-last-point')
        .filter({ hasText: formatPrice(body.instrument.quote.price) })
        .waitFor();
      assert.equal(await page.getByTestId('ticker-price').textContent(), formatPrice(body.points.at(-1)?.price ?? Number.NaN));
    });
  });
});
