// Issue 24 in Chromium against the real server: writes safe to repeat
// (a double click opens one bet), sign-up errors next to their fields, and
// the caller's own standing on the history and leaderboard pages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { openDatabase } from '../../src/db/database.js';
import { utcDate } from '../../src/domain/market-calendar.js';
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

  test("history shows the caller's own standing; the leaderboard shows their rank outside the top 100 and pages to it", async () => {
    const user = await suite.user('rank');
    const bet = (await user.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).json as { bet_id: number };
    assert.equal((await user.call('POST', '/bet/close', { bet_id: bet.bet_id })).status, 200);
    // 120 traders far ahead, written into the server's database as closes write the aggregates.
    const handle = openDatabase({ dialect: 'sqlite', path: suite.server.databasePath });
    try {
      const names = Array.from({ length: 120 }, (_, i) => suite.uniqueName(`top${i}`));
      const ids = await handle.db
        .insertInto('users')
        .values(
          names.map((n) => ({
            username: n,
            username_lower: n.toLowerCase(),
            email: `${n}@example.test`,
            password_hash: 'x',
            created_at: Date.now(),
          })),
        )
        .returning('id')
        .execute();
      await handle.db
        .insertInto('leaderboard')
        .values(ids.map(({ id }, i) => ({ user_id: id, total_score: 10_000 + i, total_trades: 1 })))
        .execute();
      const day = utcDate(Date.now());
      await handle.db
        .insertInto('user_day_stats')
        .values(
          ids.map(({ id }, i) => ({ user_id: id, day, trades: 1, score_sum: 10_000 + i, wins: 1, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 })),
        )
        .execute();
    } finally {
      await handle.close();
    }
    const standing = (await user.call('GET', '/me/standing')).json as {
      windows: Array<{ period: string; rank: number | null; total_trades: number }>;
    };
    const all = standing.windows.find((w) => w.period === 'all')!;
    assert.ok(all.rank !== null && all.rank > 100, `ranked outside the top 100: ${all.rank}`);

    await suite.withPage(async (page, context) => {
      await user.signIn(context);
      await page.goto('/app/history');
      const score = page.getByTestId('my-score');
      await score.filter({ hasText: /Closed trades\s*1/ }).waitFor();
      await page
        .getByTestId('my-rank')
        .filter({ hasText: `#${all.rank}` })
        .waitFor();

      await page.goto('/app/leaderboard');
      await page.getByTestId('leaderboard-table').waitFor();
      assert.equal(await page.getByTestId('leaderboard-table').getByRole('link', { name: user.username, exact: true }).count(), 0);
      const yours = page.getByTestId('your-rank');
      await yours.filter({ hasText: `Your rank: #${all.rank}` }).waitFor();
      await yours.getByRole('button', { name: 'Show my page' }).click();
      await page.waitForURL(/\/app\/leaderboard\?offset=100$/);
      const mine = page.getByTestId('leaderboard-table').locator('tr.row-me');
      await mine.getByRole('link', { name: user.username, exact: true }).waitFor();
      assert.equal((await mine.locator('td').first().innerText()).trim(), String(all.rank));
      await page.getByTestId('your-rank').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: '← Higher' }).click();
      await page.waitForURL(/\/app\/leaderboard$/);
      await page.getByTestId('your-rank').waitFor();
    });
  });

  test('sign-up errors: every empty field marked, the username format in words, a taken username or email next to its field', async () => {
    const existing = await suite.user('taken');
    await suite.withPage(async (page) => {
      await page.goto('/app/register');
      const field = (label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) });
      const create = page.getByRole('button', { name: 'Create account' });
      await create.click();
      await field('Username').getByText('Enter a username.').waitFor();
      await field('Email').getByText('Enter your email address.').waitFor();
      await field('Password').getByText('Enter a password.').waitFor();
      for (const label of ['Username', 'Email', 'Password'])
        assert.equal(await page.getByLabel(label, { exact: true }).getAttribute('aria-invalid'), 'true', label);

      await page.getByLabel('Username').fill('two words!');
      await field('Username').getByText('Usernames use letters, digits and _ only.').waitFor();
      await page.getByLabel('Username').fill(existing.username);
      await page.getByLabel('Email').fill(`fresh_${existing.email}`);
      await page.getByLabel('Password', { exact: true }).fill('a perfectly long passphrase here');
      await create.click();
      await field('Username').getByText('That username is taken.').waitFor();
      assert.equal(await field('Email').locator('.field-error').count(), 0);

      await page.getByLabel('Username').fill(suite.uniqueName('fresh'));
      await page.getByLabel('Email').fill(existing.email);
      await create.click();
      await field('Email').getByText('That email already has an account.').waitFor();
      assert.equal(await field('Username').locator('.field-error').count(), 0);
      assert.match(page.url(), /\/app\/register$/);
    });
  });
});
