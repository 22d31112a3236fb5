// Every page of the web app, with data that is hard to fit on a phone: users
// with 30-character names, the longest tickers of the simulated market and one
// of the longest a ticker may be (15 characters), five- and six-digit prices,
// and scores in the hundred thousands. The screenshot walks (test/long/web-app.test.ts,
// test/long/screenshots.test.ts) visit each page, save a full-page
// screenshot and fail when the page is wider than a 375 px phone.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openDatabase } from '../../src/db/database.js';
import { utcDate } from '../../src/domain/market-calendar.js';
import { type ApiUser, assertNoSidewaysScroll, type BrowserSuite, screenshot, type VIEWPORTS } from './harness.js';

/** 15 characters, the most a ticker may have (src/schemas/common.ts). */
export const LONGEST_TICKER = 'LONGTICKER.AB-C';

export interface SeededPages {
  user: ApiUser;
  /** [name, path] of every page that needs the session. */
  member: [string, string][];
  /** [name, path] of the pages a visitor sees. */
  visitor: [string, string][];
}

async function ok(user: ApiUser, method: string, path: string, body?: unknown): Promise<{ bet_id?: number }> {
  const r = await user.call(method, path, body);
  assert.ok(r.status === 200 || r.status === 201, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json as { bet_id?: number };
}

/** Users, bets, follows and a leaderboard for the pages to show. */
export async function seedPages(suite: BrowserSuite): Promise<SeededPages> {
  const user = await suite.user('shots');
  const leader = await suite.user('star');
  // Open bets on the longest and the priciest tickers of the simulated market; crypto moves around the clock, so its chart has points.
  const open = await ok(user, 'POST', '/bet/open', { ticker: 'BTC-USD', direction: 'SHORT' });
  await ok(user, 'POST', '/bet/open', { ticker: 'MATIC-USD', direction: 'LONG' });
  await ok(user, 'POST', '/bet/open', { ticker: 'SPY', direction: 'LONG' });
  const closed = await ok(user, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
  await ok(user, 'POST', '/bet/close', { bet_id: closed.bet_id });
  await ok(leader, 'POST', '/bet/open', { ticker: 'ETH-USD', direction: 'LONG' });
  await ok(user, 'POST', '/follow', { followed_id: leader.id, action: 'follow' });

  // What the API cannot make quickly: a closed bet on a 15-character ticker with a five-digit gain, and scores in the
  // hundred thousands for both users on every board (written as closes write the aggregates).
  const handle = openDatabase({ dialect: 'sqlite', path: suite.server.databasePath });
  try {
    const now = Date.now();
    await handle.db
      .insertInto('bets')
      .values({
        user_id: user.id,
        ticker: LONGEST_TICKER,
        direction: 'SHORT',
        status: 'CLOSED',
        entry_price: 123_456.789,
        exit_price: 1.2345,
        percentage_gain: 99_998.99,
        target_date: null,
        settle_at: null,
        opened_at: now - 86_400_000,
        closed_at: now - 3_600_000,
        last_event_at: now - 3_600_000,
        close_reason: 'user',
        source_bet_id: null,
        source_kind: null,
        benchmark_entry: null,
        benchmark_exit: null,
      })
      .execute();
    for (const [who, score] of [
      [user, 123_456.78],
      [leader, 987_654.32],
    ] as const) {
      await handle.db
        .insertInto('leaderboard')
        .values({ user_id: who.id, total_score: score, total_trades: 12_345 })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ total_score: score, total_trades: 12_345 }))
        .execute();
      await handle.db
        .insertInto('user_day_stats')
        .values({
          user_id: who.id,
          day: utcDate(now),
          trades: 12_345,
          score_sum: score,
          wins: 12_000,
          alpha_count: 12_345,
          alpha_sum: score,
          alpha_sq_sum: score * score,
        })
        .onConflict((oc) => oc.columns(['user_id', 'day']).doUpdateSet({ trades: 12_345, score_sum: score }))
        .execute();
    }
  } finally {
    await handle.close();
  }

  const bet = `/app/bet/${open.bet_id}`;
  return {
    user,
    member: [
      ['markets', '/app/markets?ticker=MATIC-USD'],
      ['portfolio', '/app/portfolio'],
      ['history', '/app/history'],
      ['leaderboard', '/app/leaderboard'],
      ['leaderboard-raw', '/app/leaderboard?board=raw'],
      ['rankings', '/app/rankings?period=all'],
      ['scoring', '/app/scoring'],
      ['feed', '/app/feed'],
      ['profile', `/app/user/${user.id}`],
      ['plans', '/app/plans'],
      ['notifications', '/app/notifications'],
      ['settings', '/app/settings'],
      ['bet', bet],
    ],
    visitor: [
      ['front', '/app/'],
      ['login', '/app/login'],
      ['register', '/app/register'],
      ['leaderboard-visitor', '/app/leaderboard'],
      ['leaderboard-raw-visitor', '/app/leaderboard?board=raw'],
      ['profile-visitor', `/app/user/${leader.id}`],
      ['bet-visitor', bet],
    ],
  };
}

/** Waits until a page has drawn its data: its heading, and no "Loading…" left. */
export async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForFunction(() => ![...document.querySelectorAll('[role=status]')].some((e) => e.textContent?.startsWith('Loading')));
  await page.waitForTimeout(300);
}

/** Visits each page: a screenshot named page-viewport-scheme, and no sideways scroll. */
export async function walk(page: Page, pages: [string, string][], viewport: keyof typeof VIEWPORTS, colorScheme: 'light' | 'dark'): Promise<void> {
  for (const [name, url] of pages) {
    await page.goto(url);
    await settled(page);
    await screenshot(page, `${name}-${viewport}-${colorScheme}`);
    await assertNoSidewaysScroll(page, `${name} (${url})`);
  }
}
