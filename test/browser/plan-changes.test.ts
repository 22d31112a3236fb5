// Plan changes in Chromium on the local payment provider (issue 24, item 10),
// against the service built in this process with an injected clock: subscribe,
// switch plans in the portal, cancel at the end of the period, and see the
// capacities drop once the clock passes that end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { FakeClock } from '../../src/lib/clock.js';
import { endDueLocalSubscriptions } from '../../src/services/local-payments.js';
import { ApiUser, Guard, launchBrowser, newPage, screenshot, skipReason } from './harness.js';
import { type InProcessServer, startInProcessServer } from './in-process.js';

if (skipReason) console.log(skipReason);

describe('plan changes in Chromium (local provider, injected clock)', { skip: skipReason }, () => {
  const clock = new FakeClock(Date.parse('2026-11-25T15:00:00Z'));
  let server: InProcessServer;
  let browser: Browser;

  before(async () => {
    server = await startInProcessServer(clock);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const extras = (userId: number) =>
    server.app.ctx.db.selectFrom('users').select(['extra_bets', 'extra_slots', 'pay_price_id']).where('id', '=', userId).executeTakeFirstOrThrow();

  test('subscribe, switch to Pro in the portal, cancel at the end of the period; capacities drop when it ends', async () => {
    const user = await ApiUser.create(server.baseUrl, `plan_${Date.now().toString(36)}`);
    const guard = new Guard();
    const { context, page } = await newPage(browser, guard, { baseURL: server.baseUrl });
    try {
      await user.signIn(context);
      await page.goto('/app/plans');
      await page.getByRole('button', { name: 'Choose Plus' }).click();
      await page.waitForURL(/\/pay\/local\/checkout\//);
      await page.getByRole('button', { name: 'Confirm subscription (simulated)' }).click();
      await page.getByTestId('upgrade-confirmed').waitFor();
      assert.deepEqual(await extras(user.id), { extra_bets: 10, extra_slots: 20, pay_price_id: 'local_price_plus_monthly' });

      await page.goto('/app/plans');
      await page.getByRole('button', { name: 'Change plan or cancel' }).click();
      await page.waitForURL(/\/pay\/local\/portal$/);
      await page.getByText('Renews on 2026-12-25 15:00 UTC.').waitFor();
      await page.getByRole('button', { name: /^Switch to Pro/ }).click();
      await page.waitForURL(/\/pay\/local\/portal$/);
      await page.getByRole('heading', { name: 'Pro' }).waitFor();
      assert.deepEqual(await extras(user.id), { extra_bets: 40, extra_slots: 80, pay_price_id: 'local_price_pro_monthly' });
      await screenshot(page, 'local-portal-switched-desktop');

      await page.getByRole('button', { name: 'Cancel at the end of the period (simulated)' }).click();
      await page.getByText('Cancelled: the plan ends on 2026-12-25 15:00 UTC').waitFor();
      await page.getByRole('button', { name: 'Keep my plan (simulated)' }).waitFor();
      assert.equal(await page.getByRole('button', { name: /^Switch to/ }).count(), 0);
      assert.equal((await extras(user.id)).extra_bets, 40);
      await screenshot(page, 'local-portal-cancelled-desktop');

      // Back in the app, the capacities are still the plan's.
      await page.getByRole('link', { name: 'Back to the app' }).click();
      await page.getByTestId('bet-capacity').first().waitFor();
      await guard.checkAccessibility(page, server.baseUrl, 'final state');
      await guard.settle();
      assert.deepEqual(guard.problems, []);
    } finally {
      await context.close();
    }

    clock.set(Date.parse('2026-12-25T14:59:00Z'));
    assert.equal(await endDueLocalSubscriptions(server.app.ctx), 0);
    clock.set(Date.parse('2026-12-25T15:00:00Z'));
    assert.equal(await endDueLocalSubscriptions(server.app.ctx), 1);
    assert.deepEqual(await extras(user.id), { extra_bets: 0, extra_slots: 0, pay_price_id: null });
  });
});
