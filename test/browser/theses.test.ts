// Theses in Chromium (docs/theses.md), at both sizes: the bet form's thesis
// field and its counter (over 280 the button is off), the thesis on the bet
// page as text (markup shown, never run), Report for another member, the
// reported state (others see why it is gone; the owner still sees it, and
// why), Hide for the owner, and the thesis in the follower's feed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { FakeClock } from '../../src/lib/clock.js';
import { ApiUser, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

const HOSTILE = '<img src=x onerror="window.__pwned=1"> Halving ahead & rates falling';

describe('Theses in Chromium', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse('2026-11-28T18:00:00Z'));
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

  async function withPage(user: ApiUser, viewport: 'desktop' | 'phone', expected: string[], fn: (page: Page) => Promise<void>): Promise<void> {
    const guard = new Guard(expected);
    const { context, page } = await newPage(browser, guard, { baseURL: baseUrl, viewport });
    try {
      await user.signIn(context);
      await fn(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(width <= 0, `the page scrolls sideways by ${width} px`);
      assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined, 'the thesis never runs as markup');
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`${viewport}: write a thesis, see it, report it, see it withheld, hide it, read it in the feed`, async () => {
      const tag = `${viewport[0]}${Date.now().toString(36)}`;
      const owner = await ApiUser.create(baseUrl, `th_o_${tag}`);
      const reader = await ApiUser.create(baseUrl, `th_r_${tag}`);
      assert.equal((await reader.call('POST', '/follow', { followed_id: owner.id, action: 'follow' })).status, 200);

      let betId = 0;
      await withPage(owner, viewport, [], async (page) => {
        await page.goto('/app/markets?ticker=BTC-USD');
        const field = page.getByLabel('Thesis (optional)');
        await field.fill('x'.repeat(281));
        await page.getByTestId('thesis-count').filter({ hasText: '1 characters too many' }).waitFor();
        const submit = page.getByRole('button', { name: 'Open LONG on BTC-USD' });
        assert.equal(await submit.isDisabled(), true, 'over 280 characters the bet cannot be opened');
        await field.fill(HOSTILE);
        await page
          .getByTestId('thesis-count')
          .filter({ hasText: `${280 - [...HOSTILE].length} characters left` })
          .waitFor();
        const opened = page.waitForResponse((r) => new URL(r.url()).pathname === '/bet/open' && r.status() === 200);
        await submit.click();
        betId = ((await (await opened).json()) as { bet_id: number }).bet_id;
        await page
          .getByRole('status')
          .filter({ hasText: `Bet #${betId} opened` })
          .waitFor();
        assert.equal(await field.inputValue(), '', 'the field is cleared for the next bet');

        await page.goto(`/app/bet/${betId}`);
        const quote = page.getByTestId('thesis').locator('blockquote');
        await quote.filter({ hasText: HOSTILE }).waitFor();
        assert.equal(await page.locator('.thesis img').count(), 0, 'shown as text');
        await page.getByRole('button', { name: 'Hide thesis' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Report thesis' }).count(), 0, 'no reporting your own');
        // The browser recomputes the salted hash and finds it in the opening entry.
        await page.getByTestId('record-thesis').filter({ hasText: 'committed in the opening entry' }).waitFor();
        await screenshot(page, `thesis-owner-${viewport}`);
      });

      await withPage(reader, viewport, [], async (page) => {
        await page.goto('/app/feed');
        await page.getByTestId('thesis').filter({ hasText: HOSTILE }).waitFor();
        await page.goto(`/app/bet/${betId}`);
        await page.getByTestId('thesis').filter({ hasText: HOSTILE }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Hide thesis' }).count(), 0, 'another member cannot hide it');
        await page.getByRole('button', { name: 'Report thesis' }).click();
        await page.getByRole('button', { name: 'Reported' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Reports from verified members with a ranked bet count' }).waitFor();
      });

      // Enough counted reports (the counting itself is tested in test/integration/theses.test.ts).
      await server.app.ctx.db
        .updateTable('bet_theses')
        .set({ counted_reports: server.app.ctx.config.thesisReportsToHide })
        .where('bet_id', '=', betId)
        .execute();
      clock.advance(2_000);

      await withPage(reader, viewport, [], async (page) => {
        await page.goto(`/app/bet/${betId}`);
        await page.getByTestId('thesis-reported').filter({ hasText: 'reported by members and is no longer shown' }).waitFor();
        assert.equal(await page.locator('.thesis blockquote').count(), 0);
        await screenshot(page, `thesis-reported-reader-${viewport}`);
      });

      await withPage(owner, viewport, [], async (page) => {
        assert.equal((await owner.call('POST', '/bet/close', { bet_id: betId })).status, 200);
        await page.goto('/app/history');
        await page.getByTestId('history-table').getByTestId('thesis').filter({ hasText: HOSTILE }).waitFor();
        await page.getByTestId('thesis-reported').filter({ hasText: 'Hidden from others' }).waitFor();
        await page.goto(`/app/bet/${betId}`);
        page.once('dialog', (d) => void d.accept());
        await page.getByRole('button', { name: 'Hide thesis' }).click();
        await page.getByTestId('thesis').filter({ hasText: 'You hid your thesis.' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Hide thesis' }).count(), 0);
        await screenshot(page, `thesis-hidden-${viewport}`);
      });
    });
  }
});
