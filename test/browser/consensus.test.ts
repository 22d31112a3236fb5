// The instrument page's consensus in Chromium at both sizes, against the
// service built in this process with an injected clock: skilled holders on one
// side and fresh accounts on the other, a call stored at Monday's close and
// scored at Tuesday's, and the page showing the weighted call, the raw counts
// labelled raw, and the record, as GET /instruments/{symbol}/consensus gives them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { FakeClock } from '../../src/lib/clock.js';
import type { ConsensusResponse } from '../../src/schemas/consensus.js';
import { recordConsensusCloses } from '../../src/services/consensus.js';
import { sessionFor } from '../helpers/app.js';
import { insertTestUsers } from '../helpers/users.js';
import { ApiUser, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
// Monday 30 November 2026, 10:00 New York (open); its close and Tuesday's; Wednesday morning.
const MONDAY_OPEN = '2026-11-30T15:00:00Z';
const MONDAY_CLOSE = Date.parse('2026-11-30T21:00:00Z');
const TUESDAY_CLOSE = Date.parse('2026-12-01T21:00:00Z');
const WEDNESDAY = '2026-12-02T15:00:00Z';

describe('Instrument consensus in Chromium (injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse(MONDAY_OPEN));
  let server: InProcessServer;
  let browser: Browser;
  let viewer: ApiUser;
  let answer: ConsensusResponse;

  before(async () => {
    server = await startInProcessServer(clock);
    browser = await launchBrowser();
    viewer = await ApiUser.create(server.baseUrl, `cv_${Date.now().toString(36)}`);
    const ctx = server.app.ctx;
    const open = async (userId: number, direction: 'LONG' | 'SHORT') => {
      const cookie = await sessionFor(ctx, userId);
      const res = await server.app.inject({ method: 'POST', url: '/bet/open', headers: { cookie }, payload: { ticker: 'AAPL', direction } });
      assert.equal(res.statusCode, 200, res.body);
    };
    // Three traders with ranked history (4 ranked bets of alpha 10 each, last week) hold AAPL long.
    const skilled = await insertTestUsers(ctx, 3, 'skilled');
    const day = '2026-11-23';
    const sums = { trades: 4, score_sum: 40, wins: 4, alpha_count: 4, alpha_sum: 40, alpha_sq_sum: 400 };
    await ctx.db
      .insertInto('user_day_stats')
      .values(
        skilled.map((user_id) => ({
          user_id,
          day,
          ...sums,
          ranked_trades: 4,
          ranked_score_sum: 40,
          ranked_wins: 4,
          ranked_alpha_count: 4,
          ranked_alpha_sum: 40,
          ranked_alpha_sq_sum: 400,
        })),
      )
      .execute();
    for (const id of skilled) await open(id, 'LONG');
    // Five fresh accounts hold it short: raw counts, no weight.
    for (const id of await insertTestUsers(ctx, 5, 'fresh')) await open(id, 'SHORT');
    clock.set(MONDAY_CLOSE + 60_000);
    await recordConsensusCloses(ctx, quiet);
    clock.set(TUESDAY_CLOSE + 60_000);
    await recordConsensusCloses(ctx, quiet);
    clock.set(WEDNESDAY);
    const res = await server.app.inject({ method: 'GET', url: '/instruments/AAPL/consensus' });
    assert.equal(res.statusCode, 200, res.body);
    answer = res.json();
    assert.equal(answer.record.recent.length, 2);
    assert.equal(answer.record.calls, 1);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(viewport: 'desktop' | 'phone', fn: (page: Page) => Promise<void>): Promise<void> {
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: server.baseUrl, viewport });
    try {
      await viewer.signIn(context);
      await fn(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(width <= 0, `the page scrolls sideways by ${width} px`);
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`${viewport}: the instrument page shows the weighted call, the raw counts as raw, and how the calls did`, async () => {
      await withPage(viewport, async (page) => {
        await page.goto('/app/markets?ticker=AAPL');
        const section = page.getByTestId('consensus');
        await section.waitFor();
        const weighted = page.getByTestId('consensus-weighted');
        await weighted.filter({ hasText: 'Long' }).waitFor();
        assert.match((await weighted.textContent()) ?? '', /100\.0% long, 0\.0% short by skill, from 3 skilled holders/);
        assert.match((await page.getByTestId('consensus-raw').textContent()) ?? '', /Raw holders .*: 3 long · 5 short/);
        const record = page.getByTestId('consensus-record');
        assert.match((await record.textContent()) ?? '', /Calls scored1/);
        const rate = answer.record.hit_rate;
        assert.ok(rate !== null);
        assert.match((await record.textContent()) ?? '', new RegExp(`Hit rate${rate.toFixed(1).replace('.', '\\.')}%`));
        const rows = page.getByTestId('consensus-calls').locator('tbody tr');
        assert.equal(await rows.count(), 2);
        // Newest first: Tuesday's call waits for Wednesday's close; Monday's is scored.
        assert.match((await rows.nth(0).textContent()) ?? '', /pending/);
        assert.doesNotMatch((await rows.nth(1).textContent()) ?? '', /pending/);
        await screenshot(page, `consensus-${viewport}`);
      });
    });
  }
});
