// Issue 36, items 11 and 14 in Chromium at 1280×800 and 390×844, against the
// service built in this process with an injected clock (the 5-minute cancel
// window passes without waiting): the game explained where it is played (the
// portfolio's total, hints met once and remembered, a rankings row's Why?,
// the verification email named after sign-up) and a long history on a phone
// (a two-line row per bet, filters over the page, first/last/page-number
// paging). axe-core (WCAG 2.2 AA) runs on every page state (Guard).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Browser, Page } from 'playwright-core';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { FakeClock } from '../../src/lib/clock.js';
import { skillExplanation } from '../../web/src/lib/skill.js';
import { ApiUser, assertNoSidewaysScroll, Guard, launchBrowser, newPage, PASSWORD, screenshot, skipReason, type VIEWPORTS } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

// Saturday 28 November 2026, 18:00 UTC: crypto trades around the clock.
const T0 = Date.parse('2026-11-28T18:00:00Z');
const MINUTE = 60_000;
const SIZES: (keyof typeof VIEWPORTS)[] = ['desktop', 'phone390'];
/** History rows: three pages of 20 and a few more, so the pager offers first, last and a page number. */
const CLOSED = 12;
const CANCELLED = 33;

describe('issue 36 items 11 and 14 in Chromium: the game explained, a long history on a phone', { skip: skipReason }, () => {
  const clock = new FakeClock(T0);
  let server: InProcessServer;
  let browser: Browser;
  /** A long history, two ranked trades, one open bet. */
  let alice: ApiUser;
  /** Another trader with an open bet alice can tail or fade. */
  let bob: ApiUser;
  let bobBet = 0;

  async function ok<T>(user: ApiUser, method: string, path: string, body?: unknown): Promise<T> {
    const r = await user.call(method, path, body);
    assert.ok(r.status === 200 || r.status === 201, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as T;
  }
  const openBet = async (user: ApiUser, ticker: string, direction: 'LONG' | 'SHORT') =>
    (await ok<{ bet_id: number }>(user, 'POST', '/bet/open', { ticker, direction })).bet_id;

  before(async () => {
    server = await startInProcessServer(clock);
    browser = await launchBrowser();
    const tag = Date.now().toString(36);
    alice = await ApiUser.create(server.baseUrl, `alice_${tag}`);
    bob = await ApiUser.create(server.baseUrl, `bob_${tag}`);
    clock.set(T0);
    // Two bets held past their window and closed: ranked, with an alpha against BTC-USD.
    const held = [await openBet(alice, 'BTC-USD', 'LONG'), await openBet(alice, 'ETH-USD', 'SHORT')];
    clock.set(T0 + 61 * MINUTE);
    await commitDueBets(server.app.ctx, server.app.log);
    for (const id of held) await ok(alice, 'POST', '/bet/close', { bet_id: id });
    // The rest of a long history: closes and cancels, each inside its window.
    const tickers = ['ETH-USD', 'SOL-USD', 'BTC-USD'];
    for (let i = 0; i < CLOSED - held.length; i++) {
      clock.advance(MINUTE);
      const id = await openBet(alice, tickers[i % 3], i % 2 ? 'SHORT' : 'LONG');
      await ok(alice, 'POST', '/bet/close', { bet_id: id });
    }
    for (let i = 0; i < CANCELLED; i++) {
      clock.advance(MINUTE);
      const id = await openBet(alice, tickers[i % 3], 'LONG');
      await ok(alice, 'DELETE', `/bet/${id}`);
    }
    clock.advance(MINUTE);
    await openBet(alice, 'BTC-USD', 'LONG');
    bobBet = await openBet(bob, 'SOL-USD', 'SHORT');
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(
    fn: (page: Page, context: BrowserContext, check: (label: string) => Promise<void>) => Promise<void>,
    opts: { viewport: keyof typeof VIEWPORTS; as?: ApiUser },
  ): Promise<void> {
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: server.baseUrl, viewport: opts.viewport });
    try {
      await opts.as?.signIn(context);
      await fn(page, context, (label) => guard.checkAccessibility(page, server.baseUrl, label));
      if (opts.viewport.startsWith('phone')) await assertNoSidewaysScroll(page, page.url());
      await guard.checkAccessibility(page, server.baseUrl, 'final state');
      await guard.settle();
    } finally {
      await context.close();
    }
    assert.deepEqual(guard.problems, [], guard.problems.join('\n'));
  }

  /** "Got it" hides a hint, the focus stays in the content, and the hint stays away after a reload. */
  async function dismiss(page: Page, id: string): Promise<void> {
    const hint = page.getByTestId(`hint-${id}`);
    await hint.getByRole('button', { name: /^Got it/ }).click();
    await hint.waitFor({ state: 'detached' });
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY', 'the focus is not dropped to <body>');
    await page.reload();
    await page.locator('h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await hint.count(), 0, `hint ${id} comes back after it was dismissed`);
  }

  for (const size of SIZES) {
    test(`${size}: the portfolio says what its total is; the cancel window and LONG/SHORT are explained once`, async () => {
      await withPage(
        async (page) => {
          await page.goto('/app/portfolio');
          await page.getByTestId('portfolio-total').waitFor();
          assert.match(await page.getByTestId('portfolio-total').innerText(), /Unrealized gain, 1 open bet:/);
          assert.match(await page.getByTestId('portfolio-total-note').innerText(), /No money is staked.*sum of\s+percentages, not a return/s);
          const cancel = page.getByTestId('hint-cancel-window');
          assert.match(await cancel.innerText(), /5 minutes after opening, a bet can be cancelled/);
          if (size !== 'desktop') {
            // An open bet on a phone: ticker and unrealized gain on one line, prices on the next with the date after them, then its buttons.
            const row = page.getByTestId('portfolio-table').locator('tbody tr').first();
            const top = async (label: string) => (await row.locator(`td[data-label="${label}"]`).boundingBox())?.y ?? -1;
            assert.ok(Math.abs((await top('Ticker')) - (await top('Unrealized'))) < 12, 'ticker and gain share the first line');
            assert.ok(Math.abs((await top('Current')) - (await top('Entry'))) < 6, 'entry and current price share the second line');
            assert.ok((await top('Opened')) >= (await top('Entry')) - 6, 'the date follows the prices');
            assert.equal(await row.locator('td[data-label="Settles"]').isVisible(), false, 'no target date: nothing shown for it on a phone');
            const height = (await row.boundingBox())?.height ?? 0;
            assert.ok(height > 0 && height < 130, `an open bet's row is ${height}px high`);
          }
          await screenshot(page, `game-portfolio-${size}`);
          await dismiss(page, 'cancel-window');

          await page.goto('/app/markets?ticker=BTC-USD');
          const direction = page.getByTestId('hint-direction');
          await direction.waitFor();
          assert.match(await direction.innerText(), /LONG bet gains when the price rises, a SHORT bet when it falls/);
          await dismiss(page, 'direction');
          await page.getByRole('form', { name: 'Open a bet on BTC-USD' }).waitFor();
        },
        { viewport: size, as: alice },
      );
    });

    test(`${size}: Tail and Fade are explained on another trader's open bet`, async () => {
      await withPage(
        async (page) => {
          await page.goto(`/app/bet/${bobBet}`);
          const hint = page.getByTestId('hint-tail-fade');
          await hint.waitFor();
          assert.match(await hint.innerText(), /Tail opens the same bet.*Fade opens the opposite direction/s);
          await page.getByRole('button', { name: /^Tail/ }).waitFor();
          await dismiss(page, 'tail-fade');
        },
        { viewport: size, as: alice },
      );
    });

    test(`${size}: a rankings row explains its skill; alpha and points are explained`, async () => {
      const rankings = await ok<{ rows: Array<{ id: number; skill: number; mean_alpha: number; n: number; username: string }> }>(
        bob,
        'GET',
        '/rankings?period=all',
      );
      const row = rankings.rows.find((r) => r.id === alice.id);
      assert.ok(row, 'alice is ranked (two trades held past their window)');
      assert.equal(row.n, 2);
      await withPage(
        async (page, _context, check) => {
          await page.goto('/app/rankings?period=all');
          await page.getByTestId('rankings-table').waitFor();
          assert.match(
            await page.getByTestId('hint-alpha-points').innerText(),
            /alpha is that gain minus what the same direction on the benchmark made/,
          );
          const why = page.getByTestId(`why-${alice.id}`);
          assert.equal(await why.isVisible(), false);
          const button = page.getByRole('button', { name: `Why? The skill of ${alice.username}` });
          assert.equal(await button.getAttribute('aria-expanded'), 'false');
          await button.click();
          await why.waitFor();
          assert.equal(await button.getAttribute('aria-expanded'), 'true');
          const text = await why.innerText();
          for (const line of skillExplanation(row)) assert.ok(text.includes(line), `the row says: ${line}\n---\n${text}`);
          assert.match(text, /^Skill [−+]?[\d.]+ pt = mean alpha [−+]?[\d.]+ pt − a margin of [\d.]+ pt for 2 trades\./);
          await check('a rankings row explained');
          await screenshot(page, `game-rankings-${size}`);
          await button.click();
          await why.waitFor({ state: 'hidden' });
        },
        { viewport: size, as: bob },
      );
    });

    test(`${size}: after sign-up the app says a verification link was sent, and to which address`, async () => {
      const username = `new_${size}_${Date.now().toString(36)}`.slice(0, 30);
      const email = `${username}@example.test`;
      await withPage(
        async (page) => {
          await page.goto('/app/register');
          await page.getByLabel('Username').fill(username);
          await page.getByLabel('Email').fill(email);
          await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
          await page.getByRole('button', { name: 'Create account' }).click();
          await page.waitForURL(/\/app\/portfolio$/);
          const sent = page.getByTestId('verification-sent');
          await sent.waitFor();
          assert.match(await sent.innerText(), new RegExp(`We sent a verification link to ${email.replace(/\./g, '\\.')}`));
          await screenshot(page, `game-signed-up-${size}`);
          // Shown once: a later visit does not repeat it.
          await page.goto('/app/history');
          await page.locator('h1', { hasText: 'History' }).waitFor();
          assert.equal(await sent.count(), 0);
        },
        { viewport: size },
      );
    });

    test(`${size}: a long history: a compact row per bet, filters over the page, first/last and a page number`, async () => {
      await withPage(
        async (page, _context, check) => {
          await page.goto('/app/history');
          const table = page.getByTestId('history-table');
          await table.waitFor();
          const rows = table.locator('tbody tr[data-testid^="history-row-"]');
          assert.equal(await rows.count(), 20);
          // A row's height: at most three short lines on a phone (the date may take the third), one at desktop (a 7-line card was about 200 px).
          const height = (await rows.first().boundingBox())?.height ?? 0;
          assert.ok(height > 0 && height < (size === 'desktop' ? 60 : 100), `a history row is ${height}px high`);
          if (size !== 'desktop') {
            // Ticker and gain on one line; entry, exit and date on the next.
            const top = async (label: string) => (await rows.first().locator(`td[data-label="${label}"]`).boundingBox())?.y ?? -1;
            assert.ok(Math.abs((await top('Ticker')) - (await top('Gain'))) < 12, 'ticker and gain share the first line');
            assert.ok((await top('Entry')) > (await top('Ticker')) + 10, 'prices are on the second line');
            assert.ok(Math.abs((await top('Exit')) - (await top('Entry'))) < 6, 'entry and exit share the second line');
            assert.ok((await top('Closed')) >= (await top('Entry')) - 6, 'the date follows the prices');
          }
          await screenshot(page, `game-history-${size}`);

          // Filters: over the 20 rows shown.
          const status = page.getByLabel('Status');
          await status.selectOption('CLOSED');
          const count = page.getByTestId('history-filter-count');
          await count.filter({ hasText: /of 20 bets on this page/ }).waitFor();
          for (const tag of await rows.locator('td[data-label="Status"]').allInnerTexts()) assert.match(tag, /CLOSED/i);
          await status.selectOption('ALL');
          await page.getByLabel('Ticker').fill('eth');
          await count.filter({ hasText: /of 20 bets on this page/ }).waitFor();
          const tickers = await rows.locator('td[data-label="Ticker"]').allInnerTexts();
          assert.ok(tickers.length > 0 && tickers.length < 20);
          for (const t of tickers) assert.equal(t.trim(), 'ETH-USD');
          await page.getByLabel('Ticker').fill('nosuch');
          await page.getByTestId('history-filter-empty').waitFor();
          await check('history filtered to nothing');
          await page.getByLabel('Ticker').fill('');

          // Jumps: 45 bets are three pages of 20.
          const pager = page.getByRole('navigation', { name: 'Pages' });
          await pager.getByText('1–20 of 45').waitFor();
          await pager.getByRole('button', { name: 'Last page' }).click();
          await page.waitForURL(/\/app\/history\?offset=40$/);
          await pager.getByText('41–45 of 45').waitFor();
          assert.equal(await rows.count(), 5);
          assert.equal(await pager.getByRole('button', { name: 'Last page' }).isDisabled(), true);
          const input = pager.getByLabel('Page');
          assert.equal(await input.inputValue(), '3');
          await input.fill('9');
          assert.equal(await input.getAttribute('aria-invalid'), 'true');
          assert.equal(await pager.getByRole('button', { name: 'Go to page' }).isDisabled(), true);
          await input.fill('2');
          await input.press('Enter');
          await page.waitForURL(/\/app\/history\?offset=20$/);
          await pager.getByText('21–40 of 45').waitFor();
          await check('history page 2');
          await pager.getByRole('button', { name: 'First page' }).click();
          await page.waitForURL(/\/app\/history$/);
          await pager.getByText('1–20 of 45').waitFor();
        },
        { viewport: size, as: alice },
      );
    });
  }
});
