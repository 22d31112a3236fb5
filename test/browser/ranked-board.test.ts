// Issue 33 item 8 in Chromium, against the service built in this process with
// an injected clock (a bet's cancel window is 5 minutes; the test moves time
// instead of waiting): the ranked board leads on the front door and the
// Leaderboard page, SPEC's raw board is one tab away (in the URL, reached by
// keyboard, Back works), a profile shows closes made before the committed
// instant, cancels and holding time, a bet page its committed price and
// ranked gain (or why it is not ranked), a league board its scoring, and every
// board links to the scoring page. Nothing is stubbed: the bets are made
// through the API and the pages show what the service answers.
import { formatDateTime } from '../../web/src/lib/format.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { FakeClock } from '../../src/lib/clock.js';
import { formatGain, formatPrice } from '../../web/src/lib/format.js';
import { BOARD_LABELS } from '../../web/src/lib/scoring.js';
import { ApiUser, assertNoSidewaysScroll, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

// Saturday 28 November 2026, 18:00 UTC: crypto trades around the clock.
const T0 = Date.parse('2026-11-28T18:00:00Z');
const MINUTE = 60_000;

interface BetView {
  id: number;
  entry_date: string;
  committed_at: string;
  committed_price: number | null;
  ranked_gain: number | null;
  ranked: string;
}

/** A date as the app shows it in this browser (its one format, in the browser's zone: UTC). */
const shown = (iso: string) => formatDateTime(iso, 'UTC');

describe('issue 33 item 8 in Chromium: what the web app leads with (injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(T0);
  let server: InProcessServer;
  let browser: Browser;
  /** Holds a bet past its window and closes it: ranked. */
  let steady: ApiUser;
  /** Closes inside the window and cancels: raw gains only. */
  let quick: ApiUser;
  const bets: Record<'ranked' | 'early' | 'cancelled' | 'committedOpen' | 'pending', number> = {
    ranked: 0,
    early: 0,
    cancelled: 0,
    committedOpen: 0,
    pending: 0,
  };

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
    steady = await ApiUser.create(server.baseUrl, `steady_${tag}`);
    quick = await ApiUser.create(server.baseUrl, `quick_${tag}`);

    clock.set(T0);
    bets.ranked = await openBet(steady, 'BTC-USD', 'LONG');
    bets.early = await openBet(quick, 'ETH-USD', 'LONG');
    bets.cancelled = await openBet(quick, 'SOL-USD', 'SHORT');
    clock.advance(MINUTE);
    await ok(quick, 'POST', '/bet/close', { bet_id: bets.early });
    await ok(quick, 'DELETE', `/bet/${bets.cancelled}`);
    clock.set(T0 + 55 * MINUTE);
    bets.committedOpen = await openBet(steady, 'ETH-USD', 'SHORT');
    clock.set(T0 + 61 * MINUTE);
    // The close commits the bet first (its window ended an hour ago), then ranks it from that price.
    await ok(steady, 'POST', '/bet/close', { bet_id: bets.ranked });
    // The worker's pass, run by the test at the clock it set: the bet opened at 55 min is committed.
    await commitDueBets(server.app.ctx, server.app.log);
    bets.pending = await openBet(steady, 'BTC-USD', 'SHORT');
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(
    fn: (page: Page, context: BrowserContext) => Promise<void>,
    opts: { viewport?: 'desktop' | 'phone'; as?: ApiUser } = {},
  ): Promise<void> {
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: server.baseUrl, viewport: opts.viewport });
    try {
      await opts.as?.signIn(context);
      await fn(page, context);
      if (opts.viewport === 'phone') await assertNoSidewaysScroll(page, page.url());
      await guard.checkAccessibility(page, server.baseUrl, 'final state');
      await guard.settle();
    } finally {
      await context.close();
    }
    assert.deepEqual(guard.problems, [], guard.problems.join('\n'));
  }

  // ── Needs the other helpers' endpoints: GET /leaderboard/ranked. ──
  test("the front door's live top 10 is the ranked board; the raw board and the scoring page are a link away", async () => {
    const ranked = (await ok<Array<{ username: string }>>(steady, 'GET', '/leaderboard/ranked?limit=10')).map((r) => r.username);
    assert.ok(ranked.includes(steady.username), 'the bet held past its window is ranked');
    assert.ok(!ranked.includes(quick.username), 'a close inside the window is not');
    await withPage(async (page) => {
      await page.goto('/app/');
      const rows = page.getByTestId('front-leaderboard').locator('li');
      await rows.first().waitFor();
      assert.equal(await rows.count(), ranked.length);
      for (const [i, name] of ranked.entries()) assert.match(await rows.nth(i).innerText(), new RegExp(`^${i + 1}\\s+${name}`));
      // "1 trade", not "1 trades": steady's one ranked bet.
      assert.match(await rows.nth(ranked.indexOf(steady.username)).innerText(), /· 1 trade$/);
      await page.getByText('By ranked gains').waitFor();
      await screenshot(page, 'ranked-front-desktop');

      await page.getByRole('link', { name: 'Raw gains: every close counts' }).click();
      await page.waitForURL(/\/app\/leaderboard\?board=raw$/);
      await page.getByTestId('leaderboard-table').getByRole('link', { name: quick.username, exact: true }).waitFor();
      assert.equal(await page.getByTestId('board-tab-raw').getAttribute('aria-current'), 'page');

      await page.goto('/app/');
      await page.getByTestId('front-leaderboard').waitFor();
      await page.getByRole('link', { name: 'How scoring works' }).click();
      await page.waitForURL(/\/app\/scoring$/);
      await page.getByRole('heading', { level: 1, name: 'How scoring works' }).waitFor();
    });
  });

  // ── Needs the other helpers' endpoints: GET /leaderboard/ranked and /me/standing's ranked_windows. ──
  test('the Leaderboard page opens on the ranked board; the raw tab is in the URL, reached by keyboard, and Back returns', async () => {
    await withPage(
      async (page) => {
        await page.goto('/app/leaderboard');
        const table = page.getByTestId('leaderboard-table');
        const rankedTab = page.getByRole('link', { name: BOARD_LABELS.ranked, exact: true });
        const rawTab = page.getByRole('link', { name: BOARD_LABELS.raw, exact: true });
        await table.getByRole('link', { name: steady.username, exact: true }).waitFor();
        assert.equal(await table.getByRole('link', { name: quick.username, exact: true }).count(), 0);
        assert.equal(await rankedTab.getAttribute('aria-current'), 'page');
        assert.equal(await rawTab.getAttribute('aria-current'), null);
        await page.getByTestId('board-explained').getByText('committed price').waitFor();
        await page.getByTestId('board-explained').getByRole('link', { name: 'How scoring works' }).waitFor();
        // The caller's own row on the ranked board is highlighted.
        await table.locator('tr.row-me').getByRole('link', { name: steady.username, exact: true }).waitFor();

        // By keyboard: from the ranked tab, Tab reaches the raw tab, Enter opens it.
        await rankedTab.focus();
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), BOARD_LABELS.raw);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/app\/leaderboard\?board=raw$/);
        await table.getByRole('link', { name: quick.username, exact: true }).waitFor();
        await table.getByRole('link', { name: steady.username, exact: true }).waitFor();
        assert.equal(await rawTab.getAttribute('aria-current'), 'page');
        await page.getByTestId('board-explained').getByText('/leaderboard').waitFor();

        // The window stays with the board; another board opens at its top.
        await page.getByRole('button', { name: '7 days' }).click();
        await page.waitForURL(/\/app\/leaderboard\?board=raw&period=7d$/);
        await rankedTab.click();
        await page.waitForURL(/\/app\/leaderboard\?period=7d$/);
        await page.getByRole('button', { name: '7 days', pressed: true }).waitFor();

        await page.goBack();
        await page.waitForURL(/\/app\/leaderboard\?board=raw&period=7d$/);
        assert.equal(await rawTab.getAttribute('aria-current'), 'page');
        await page.goBack();
        await page.goBack();
        await page.waitForURL(/\/app\/leaderboard$/);
        assert.equal(await rankedTab.getAttribute('aria-current'), 'page');
        await screenshot(page, 'ranked-leaderboard-desktop');
      },
      { as: steady },
    );
  });

  // ── Passes on this branch alone (the raw board is SPEC's GET /leaderboard). ──
  test('on a phone the two tabs wrap and nothing scrolls sideways', async () => {
    await withPage(
      async (page) => {
        await page.goto('/app/leaderboard?board=raw');
        await page.getByTestId('leaderboard-table').waitFor();
        await page.getByRole('link', { name: BOARD_LABELS.raw, exact: true }).waitFor();
        await screenshot(page, 'raw-leaderboard-phone');
      },
      { viewport: 'phone' },
    );
  });

  // ── Needs the other helpers' endpoints: /user/{id}/stats's early_closes, early_close_share and raw. ──
  test('a profile shows, to a visitor, closes before the committed instant (count and share), cancels and median holding', async () => {
    const stats = await ok<{ early_closes: number; early_close_share: number | null; raw: { total_gain: number } }>(
      quick,
      'GET',
      `/user/${quick.id}/stats`,
    );
    assert.equal(stats.early_closes, 1);
    assert.equal(stats.early_close_share, 1);
    await withPage(
      async (page) => {
        await page.goto(`/app/user/${quick.id}`);
        const habits = page.getByTestId('stats-habits');
        await habits.getByRole('heading', { name: 'How they trade' }).waitFor();
        assert.equal((await page.getByTestId('stat-early-closes').locator('.stat-value').innerText()).trim(), '1');
        assert.match(await page.getByTestId('stat-early-closes').innerText(), /100\.0% of closes, inside the cancel window/);
        assert.match(await page.getByTestId('stat-cancel-rate').innerText(), /1 of 2 opened/);
        assert.equal((await page.getByTestId('stat-holding').locator('.stat-value').innerText()).trim(), '1 min');
        // Scored figures say ranked, raw ones raw.
        await page.getByTestId('stats-ranked').getByText('Ranked win rate').waitFor();
        await page.getByTestId('stats-raw').getByText('Raw total gain').waitFor();
        assert.equal((await page.getByTestId('stat-raw-total').locator('.stat-value').innerText()).trim(), formatGain(stats.raw.total_gain));
        await screenshot(page, 'profile-habits-phone');
      },
      { viewport: 'phone' },
    );
  });

  // ── Passes on this branch alone: cancels and holding come from fields the service already has. ──
  test("a profile's cancels and median holding are there for a visitor", async () => {
    await withPage(async (page) => {
      await page.goto(`/app/user/${quick.id}`);
      await page.getByTestId('stats-habits').waitFor();
      assert.match(await page.getByTestId('stat-cancel-rate').innerText(), /50\.0%[\s\S]*1 of 2 opened/);
      assert.equal((await page.getByTestId('stat-holding').locator('.stat-value').innerText()).trim(), '1 min');
    });
  });

  // ── Needs the other helpers' endpoints: GET /bet/{id}'s committed_at, committed_price, ranked_gain, ranked. ──
  test('a bet page shows its committed price and ranked gain beside its gain, or one line on why it is not ranked', async () => {
    const view = async (id: number) => ok<BetView>(steady, 'GET', `/bet/${id}`);
    const ranked = await view(bets.ranked);
    assert.equal(ranked.ranked, 'ranked');
    assert.ok(ranked.committed_price !== null && ranked.ranked_gain !== null);
    const open = await view(bets.committedOpen);
    assert.ok(open.committed_price !== null);
    await withPage(async (page) => {
      const committed = page.getByTestId('bet-committed');
      const rankedGain = page.getByTestId('bet-ranked-gain');
      const reason = page.getByTestId('unranked-reason');

      await page.goto(`/app/bet/${bets.ranked}`);
      await committed
        .locator('.stat-value')
        .filter({ hasText: formatPrice(ranked.committed_price!) })
        .waitFor();
      assert.match(await committed.innerText(), new RegExp(`at ${shown(ranked.committed_at)}`));
      assert.equal((await rankedGain.locator('.stat-value').innerText()).trim(), formatGain(ranked.ranked_gain!));
      assert.equal(await reason.count(), 0);
      await screenshot(page, 'bet-ranked-desktop');

      await page.goto(`/app/bet/${bets.early}`);
      await reason.getByText(/^Not ranked: it ended inside its cancel window/).waitFor();
      assert.equal((await committed.locator('.stat-value').innerText()).trim(), 'none');
      assert.equal((await rankedGain.locator('.stat-value').innerText()).trim(), 'not ranked');
      await reason.getByRole('link', { name: 'How scoring works' }).waitFor();

      await page.goto(`/app/bet/${bets.cancelled}`);
      await reason.getByText('Not ranked: cancelled bets never count.').waitFor();

      await page.goto(`/app/bet/${bets.committedOpen}`);
      await committed
        .locator('.stat-value')
        .filter({ hasText: formatPrice(open.committed_price!) })
        .waitFor();
      await reason.getByText(/^Ranked once it ends/).waitFor();
    });
  });

  // ── Passes on this branch alone: an open bet inside its window shows its committed instant from its entry date. ──
  test('an open bet inside its window says "not yet committed" and when it commits', async () => {
    const bet = await ok<BetView>(steady, 'GET', `/bet/${bets.pending}`);
    // The end of its cancel window: opened at 61 min, committed at 66 min.
    const at = bet.committed_at ?? new Date(Date.parse(bet.entry_date) + 5 * MINUTE).toISOString();
    assert.equal(Date.parse(at), T0 + 66 * MINUTE);
    await withPage(
      async (page) => {
        await page.goto(`/app/bet/${bets.pending}`);
        const committed = page.getByTestId('bet-committed');
        await committed.getByText('not yet committed').waitFor();
        assert.match(await committed.innerText(), new RegExp(`commits at ${shown(at)}`));
        assert.equal((await page.getByTestId('bet-ranked-gain').locator('.stat-value').innerText()).trim(), 'not yet');
      },
      { viewport: 'phone' },
    );
  });

  // ── The scoring words need GET /leagues/{id}/board's scoring_version; the link passes on this branch alone. ──
  test('a league board says which scoring it uses and links to the scoring page', async () => {
    const league = await ok<{ id: number }>(steady, 'POST', '/leagues', {
      name: 'Ranked from the start',
      starts_at: new Date(clock.now() + 3_600_000).toISOString(),
      ends_at: new Date(clock.now() + 7 * 86_400_000).toISOString(),
      visibility: 'public',
      rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
    });
    await withPage(async (page) => {
      await page.goto(`/app/leagues/${league.id}`);
      const scoring = page.getByTestId('board-scoring');
      await scoring.getByRole('link', { name: 'How scoring works' }).waitFor();
      await scoring.getByText('Scored on ranked gains.').waitFor();
    });
  });

  // ── Passes on this branch alone. ──
  test('the rankings link to the scoring page, which says what counts and why, and fits a phone', async () => {
    await withPage(
      async (page) => {
        await page.goto('/app/rankings');
        await page.getByRole('heading', { level: 1, name: 'Rankings' }).waitFor();
        await page.getByRole('link', { name: 'How scoring works' }).click();
        await page.waitForURL(/\/app\/scoring$/);
        await page.waitForFunction(() => document.title === 'How scoring works · Paper Bets');
        const main = page.getByRole('main');
        for (const text of [
          'For 5 minutes after opening, a bet can be cancelled at no cost',
          'closing it is riskless',
          'the first quote the service publishes at or after that instant',
          'runs from the committed price to the exit price',
          'a cancelled bet;',
          'keep the scoring they started with',
        ])
          await main.getByText(text).first().waitFor();
        await main.getByText('/leaderboard', { exact: true }).waitFor();
        await main.getByRole('link', { name: 'Raw gains: every close counts' }).click();
        await page.waitForURL(/\/app\/leaderboard\?board=raw$/);
        await page.goBack();
        await page.waitForURL(/\/app\/scoring$/);
        await screenshot(page, 'scoring-phone');
      },
      { viewport: 'phone', as: quick },
    );
  });
});
