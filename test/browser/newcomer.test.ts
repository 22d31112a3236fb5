// Issue 24 in Chromium against the real server: writes safe to repeat
// (a double click opens one bet), sign-up errors next to their fields, and
// the caller's own standing on the history and leaderboard pages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { BrowserSuite, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

/** Every POST /bet/open and /bet/close the page sends, with its Idempotency-Key. */
function recordWrites(page: Page): Array<{ path: string; key: string | undefined }> {
  const seen: Array<{ path: string; key: string | undefined }> = [];
  page.on('request', (req: Request) => {
    const path = new URL(req.url()).pathname;
    if (req.method() === 'POST' && (path === '/bet/open' || path === '/bet/close')) seen.push({ path, key: req.headers()['idempotency-key'] });
  });
  return seen;
}

describe('issue 24 in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('a double click on "Open LONG" opens one bet; a double click on Close closes it once, without an error', async () => {
    const user = await suite.user('dbl');
    await suite.withPage(async (page, context) => {
      await user.signIn(context);
      const writes = recordWrites(page);
      await page.goto('/app/markets?ticker=AAPL');
      await page.getByTestId('ticker-price').filter({ hasText: /\d/ }).waitFor();
      const openLong = page.getByRole('button', { name: 'Open LONG on AAPL' });
      await openLong.dblclick();
      await page.getByText(/Bet #\d+ opened at/).waitFor();
      // Two clicks in one task, before the page can disable the button: both reach the server, under one key.
      await openLong.waitFor({ state: 'visible' });
      await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>('form.bet-form button[type=submit]')?.disabled);
      await page.evaluate(() => {
        const button = document.querySelector<HTMLButtonElement>('form.bet-form button[type=submit]');
        button?.click();
        button?.click();
      });
      await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>('form.bet-form button[type=submit]')?.disabled);
      await page.getByText(/Bet #\d+ opened at/).waitFor();

      const portfolio = (await user.call('GET', '/portfolio')).json as Array<{ id: number }>;
      assert.equal(portfolio.length, 2, 'one bet per user action');
      const opens = writes.filter((w) => w.path === '/bet/open');
      assert.ok(opens.length >= 3, `the same-task double click sent both (${opens.length} sends)`);
      assert.ok(
        opens.every((w) => typeof w.key === 'string' && w.key.length > 0),
        'every open carries an Idempotency-Key',
      );
      assert.equal(new Set(opens.map((w) => w.key)).size, 2, 'one key per user action');

      await page.goto('/app/portfolio');
      const rows = page.getByTestId('portfolio-table').locator('tbody tr');
      await rows.nth(1).waitFor();
      await rows
        .first()
        .getByRole('button', { name: /^Close bet/ })
        .dblclick();
      await page.getByText(/Closed AAPL at/).waitFor();
      await rows.nth(1).waitFor({ state: 'detached' });
      assert.equal(await page.getByText('Bet is not open').count(), 0);
      assert.equal(((await user.call('GET', '/portfolio')).json as unknown[]).length, 1);
    });
  });
});
