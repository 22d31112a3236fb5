// Exit rules in Chromium (issue 37) against the service built in this process
// with an injected clock: the bet form's stop-loss and take-profit show the
// price each corresponds to at today's quote and open the bet with them; the
// bet page's panel shows the levels with their prices and changes them; once
// the trigger engine closes the bet at a crossing quote, the page says why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { priceTriggersJob } from '../../src/jobs/price-triggers.js';
import { FakeClock } from '../../src/lib/clock.js';
import { exitRulesWatcher } from '../../src/services/exit-rules.js';
import { formatPrice } from '../../web/src/lib/format.js';
import { ApiUser, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

// Crypto trades around the clock; the simulated walk is seeded, so its quotes are the same on every run.
const START = '2026-11-28T18:00:00Z';

describe('exit rules in Chromium (injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse(START));
  let server: InProcessServer;
  let browser: Browser;
  let user: ApiUser;

  before(async () => {
    server = await startInProcessServer(clock);
    browser = await launchBrowser();
    user = await ApiUser.create(server.baseUrl, `ex_${Date.now().toString(36)}`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function withPage(fn: (page: Page) => Promise<void>): Promise<void> {
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: server.baseUrl, viewport: 'desktop' });
    try {
      await user.signIn(context);
      await fn(page);
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }
  }

  test('the bet form opens a bet with exits, showing the price of each level; the bet page changes them; a fired exit says why', async () => {
    let betId = 0;
    await withPage(async (page) => {
      await page.goto('/app/markets?ticker=BTC-USD');
      const headline = page.getByTestId('ticker-price');
      await headline.filter({ hasText: /\d/ }).waitFor();
      const price = (await user.call('GET', '/price/BTC-USD')).json as { price: number };
      assert.equal(await headline.textContent(), formatPrice(price.price));
      await page.getByLabel('Stop-loss % (optional)').fill('-5');
      await page.getByLabel('Take-profit % (optional)').fill('10');
      await page
        .getByTestId('stop-loss-price')
        .filter({ hasText: `≈ ${formatPrice(price.price * 0.95)}` })
        .waitFor();
      await page
        .getByTestId('take-profit-price')
        .filter({ hasText: `≈ ${formatPrice(price.price * 1.1)}` })
        .waitFor();
      await page.getByText('Closes at the first published quote at or beyond the level').waitFor();
      await page.getByLabel('Take-profit % (optional)').fill('20000');
      await page.getByText('Between 0.01 and 10000').waitFor();
      assert.equal(await page.getByRole('button', { name: /^Open LONG on BTC-USD/ }).isDisabled(), true, 'out of bounds: not sent');
      await page.getByLabel('Take-profit % (optional)').fill('10');
      await page.getByRole('button', { name: /^Open LONG on BTC-USD/ }).click();
      const opened = page.getByRole('status').filter({ hasText: /Bet #\d+ opened/ });
      await opened.waitFor();
      betId = Number(/#(\d+)/.exec((await opened.textContent()) ?? '')?.[1]);
      const exits = (await user.call('GET', `/bet/${betId}/exits`)).json as Record<string, number>;
      assert.equal(exits.stop_loss, -5);
      assert.equal(exits.take_profit, 10);
      await screenshot(page, 'exits-bet-form');

      await page.goto(`/app/bet/${betId}`);
      const panel = page.getByTestId('bet-exits');
      await panel.getByText(`Stop-loss: -5 % · ${formatPrice(exits.stop_loss_price)}`).waitFor();
      await panel.getByText(`Take-profit: 10 % · ${formatPrice(exits.take_profit_price)}`).waitFor();
      await panel.getByLabel('Take-profit % (optional)').fill('20');
      await panel.getByLabel('Stop-loss % (optional)').fill('');
      await panel.getByRole('button', { name: 'Save exits' }).click();
      await panel.getByText('Stop-loss: none').waitFor();
      await panel.getByText(/^Take-profit: 20 %/).waitFor();
      const changed = (await user.call('GET', `/bet/${betId}/exits`)).json as Record<string, number | null>;
      assert.deepEqual([changed.stop_loss, changed.take_profit], [null, 20]);
      await screenshot(page, 'exits-bet-page');
    });

    // Tight levels, then the trigger engine pass by pass along the seeded walk until one fires.
    assert.equal((await user.call('PUT', `/bet/${betId}/exits`, { stop_loss: -0.01, take_profit: 0.01 })).status, 200);
    const job = priceTriggersJob(server.app.ctx, [exitRulesWatcher(server.app.ctx)], { info() {}, warn() {}, error() {} });
    let fired = 0;
    for (let i = 0; i < 200 && fired === 0; i++) {
      clock.advance(6_000);
      fired = await job.run(new AbortController().signal);
    }
    assert.equal(fired, 1);
    const bet = (await user.call('GET', `/bet/${betId}`)).json as { status: string; close_reason: string };
    assert.equal(bet.status, 'CLOSED');
    await withPage(async (page) => {
      await page.goto(`/app/bet/${betId}`);
      const why = bet.close_reason === 'stop_loss' ? 'stop-loss' : 'take-profit';
      await page
        .getByTestId('close-reason')
        .filter({ hasText: `Closed by its ${why}, at the first published quote at or beyond the level.` })
        .waitFor();
      assert.equal(await page.getByTestId('bet-exits').count(), 0, 'no exits panel on a closed bet');
    });
  });
});
