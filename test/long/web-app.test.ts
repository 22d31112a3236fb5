// Every flow of the web app in Chromium against the real server on its own
// database. A flow uses the endpoints it needs: one that is missing fails it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiUser, BrowserSuite, clickNavItem, navItem, PASSWORD, screenshot, skipReason } from '../browser/harness.js';
import { settlementOf } from '../../web/src/lib/settlement.js';
import { seedPages, walk } from '../browser/pages.js';

if (skipReason) console.log(skipReason);

describe('web app in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('sign up from the front door (the password rule shown before submit) and land signed in; log out, log in', async () => {
    await suite.withPage(
      async (page) => {
        const username = suite.uniqueName('ui');
        const email = `${username}@example.test`;
        await page.goto('/app/');
        await page.getByRole('heading', { level: 1, name: 'Call the market with paper money' }).waitFor();
        await page.getByRole('main').getByRole('link', { name: 'Sign up free' }).click();
        await page.waitForURL(/\/app\/register$/);
        await page.getByText('At least 15 characters').waitFor();

        await page.getByLabel('Username').fill(username);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password', { exact: true }).fill('too short');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.getByText('The password needs at least 15 characters.').waitFor();
        assert.match(page.url(), /\/app\/register$/);

        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Create account' }).click();
        // Signed up is signed in: the page registers, then logs in.
        await page.waitForURL(/\/app\/portfolio$/);
        await page.getByRole('button', { name: `Account ${username}`, exact: true }).waitFor();
        await clickNavItem(page, 'Log out', 'button');
        await page.waitForURL(/\/app\/login$/);

        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password', { exact: true }).fill('a wrong password entirely');
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.getByText('Wrong email or password.').waitFor();

        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/app\/portfolio$/);
        await page.getByRole('button', { name: `Account ${username}`, exact: true }).waitFor();

        await clickNavItem(page, 'Log out', 'button');
        await page.waitForURL(/\/app\/login$/);
        await page.goto('/app/portfolio');
        await page.waitForURL(/\/app\/login\?next=%2Fportfolio$/);

        // The same username again: the API's answer lands next to the field.
        await page.goto('/app/register');
        await page.getByLabel('Username').fill(username);
        await page.getByLabel('Email').fill(`other_${email}`);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.getByRole('alert').first().waitFor();
        assert.match(page.url(), /\/app\/register$/);
      },
      { expect: ['401 POST /login', '409 POST /register'] },
    );
  });

  test('open bets, see them in the portfolio, cancel one, close one; history and leaderboard change', async () => {
    const user = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('trader'));
    await suite.withPage(async (page) => {
      await suite.logIn(page, user.email);

      await page.goto('/app/leaderboard?board=raw');
      await page.getByRole('heading', { name: 'Leaderboard' }).waitFor();
      await page.locator('[data-testid=leaderboard-table], main .empty').first().waitFor();
      assert.equal(await page.locator('main').getByRole('link', { name: user.username, exact: true }).count(), 0);

      await page.goto('/app/markets?ticker=AAPL');
      await page.getByTestId('ticker-price').filter({ hasText: /\d/ }).waitFor();
      await page.getByRole('button', { name: 'Open LONG on AAPL' }).click();
      await page.getByText(/Bet #\d+ opened at/).waitFor();

      await page.getByText('Short (price goes down)').click();
      const target = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel('Target date (optional)').fill(target);
      await page.getByRole('button', { name: 'Open SHORT on AAPL' }).click();
      await page.getByText(/Bet #\d+ opened at/).waitFor();
      assert.equal(await page.getByLabel('Target date (optional)').getAttribute('min'), new Date().toISOString().slice(0, 10));

      await page.getByRole('link', { name: 'See it in your portfolio' }).click();
      await page.waitForURL(/\/app\/portfolio$/);
      const rows = page.getByTestId('portfolio-table').locator('tbody tr');
      await rows.nth(1).waitFor();
      assert.equal(await rows.count(), 2);
      await page
        .getByTestId('bet-capacity')
        .filter({ hasText: /Open bets 2\// })
        .waitFor();
      const shortRow = rows.filter({ hasText: 'SHORT' });
      // The target date shows as when the bet settles, in the browser's zone (UTC here).
      await shortRow
        .getByTestId('settles')
        .filter({ hasText: settlementOf('AAPL', target, 'UTC') })
        .waitFor();
      // The cancel button counts down to cancelable_until.
      const cancel = shortRow.getByRole('button', { name: /^Cancel .* left to cancel bet/ });
      assert.match(await cancel.innerText(), /Cancel\s+[0-5]:[0-5]\d/);

      await cancel.click();
      await shortRow.getByRole('button', { name: /^Yes, cancel bet/ }).click();
      await page.getByText(/Bet #\d+ cancelled/).waitFor();
      await rows.nth(1).waitFor({ state: 'detached' });

      await rows
        .first()
        .getByRole('button', { name: /^Close bet/ })
        .click();
      await rows
        .first()
        .getByRole('button', { name: /^Yes, close bet/ })
        .click();
      await page.getByText(/Closed AAPL at/).waitFor();
      await page.getByText('No open bets.').waitFor();

      await clickNavItem(page, 'History');
      const history = page.getByTestId('history-table').locator('tbody tr');
      await history.nth(1).waitFor();
      assert.equal(await history.count(), 2);
      await history.filter({ hasText: 'CANCELLED' }).waitFor();
      await history.filter({ hasText: 'CLOSED' }).waitFor();
      await page
        .getByTestId('my-score')
        .filter({ hasText: /Closed trades\s*1/ })
        .waitFor();

      // A close seconds after opening counts on the raw board (SPEC's /leaderboard), not on the ranked one.
      await clickNavItem(page, 'Leaderboard');
      await page.getByRole('link', { name: "Raw gains: every close counts, as the API's /leaderboard" }).click();
      await page.getByTestId('leaderboard-table').getByRole('link', { name: user.username, exact: true }).click();
      await page.waitForURL(new RegExp(`/app/user/${user.id}$`));
      await page.getByRole('heading', { name: user.username }).waitFor();
    });
  });

  test('at the open-bet limit the 403 is explained, with a link to the plans', async () => {
    const user = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('full'));
    const me = (await user.call('GET', '/me')).json as { bet_capacity: number };
    for (let i = 0; i < me.bet_capacity; i++) assert.equal((await user.call('POST', '/bet/open', { ticker: 'SPY', direction: 'LONG' })).status, 200);
    await suite.withPage(
      async (page) => {
        await suite.logIn(page, user.email);
        await page.getByText(`All ${me.bet_capacity} open-bet slots are in use`).waitFor();
        await page.goto('/app/markets?ticker=SPY');
        await page.getByRole('button', { name: 'Open LONG on SPY' }).click();
        // Every slot holds a LONG SPY bet: the form asks first whether to open an identical one.
        await page.getByRole('button', { name: /^Yes, open another/ }).click();
        const alert = page.getByRole('alert').filter({ hasText: `limit ${me.bet_capacity}` });
        await alert.getByRole('link', { name: /plans/ }).click();
        await page.waitForURL(/\/app\/plans$/);
      },
      { expect: ['403 POST /bet/open'] },
    );
  });

  test('follow a user found by search and see their bet in the feed', async () => {
    const leader = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('leader'));
    const opened = await leader.call('POST', '/bet/open', { ticker: 'MSFT', direction: 'LONG' });
    assert.equal(opened.status, 200, JSON.stringify(opened.json));
    const follower = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('fan'));
    await suite.withPage(async (page) => {
      await suite.logIn(page, follower.email);
      await clickNavItem(page, 'Feed');
      await page.getByText('Nothing yet.').waitFor();
      await page
        .getByTestId('follow-capacity')
        .filter({ hasText: /Follows 0\// })
        .waitFor();

      await page.getByLabel('Username').fill(leader.username.slice(0, -1));
      const result = page.getByTestId('search-results').locator('li', { hasText: leader.username });
      await result.getByRole('button', { name: `Follow ${leader.username}` }).click();
      await result.getByRole('button', { name: `Unfollow ${leader.username}` }).waitFor();
      await page
        .getByTestId('follow-capacity')
        .filter({ hasText: /Follows 1\// })
        .waitFor();

      const item = page.getByTestId('feed-list').locator('li', { hasText: leader.username });
      await item.getByRole('link', { name: 'MSFT' }).waitFor();
      await item.getByText('OPEN', { exact: true }).waitFor();

      await item.getByRole('link', { name: leader.username }).click();
      await page.waitForURL(new RegExp(`/app/user/${leader.id}$`));
      await page.getByTestId('profile-portfolio').getByText('MSFT').waitFor();
      await page.getByRole('button', { name: `Unfollow ${leader.username}` }).waitFor();
    });
  });

  test("tail a followed trader's bet from the feed", async () => {
    const leader = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('lead'));
    await leader.call('POST', '/bet/open', { ticker: 'NVDA', direction: 'SHORT' });
    const follower = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('tail'));
    assert.equal((await follower.call('POST', '/follow', { followed_id: leader.id, action: 'follow' })).status, 200);
    await suite.withPage(async (page) => {
      await suite.logIn(page, follower.email);
      await page.goto('/app/feed');
      const item = page.getByTestId('feed-list').locator('li', { hasText: leader.username });
      await item.getByRole('button', { name: /^Tail bet/ }).click();
      await item.getByRole('button', { name: /^Yes, tail/ }).click();
      await item.getByText(/Opened bet #\d+ at/).waitFor();
      await page.goto('/app/portfolio');
      await page.getByTestId('portfolio-table').locator('tbody tr', { hasText: 'NVDA' }).filter({ hasText: 'SHORT' }).waitFor();
    });
  });

  test('upgrade through the local payment provider and see the capacity rise', async () => {
    const user = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('payer'));
    const before = (await user.call('GET', '/me')).json as { bet_capacity: number };
    await suite.withPage(async (page) => {
      await suite.logIn(page, user.email);
      await page.goto('/app/plans');
      const plan = page.getByTestId('plans').locator('li.plan').first();
      await plan.waitFor();
      assert.match(await plan.locator('.plan-price').innerText(), /[$€£¥]|[A-Z]{3}/);
      await plan.getByRole('button', { name: /^Choose/ }).click();
      await page.waitForURL(/\/pay\/local\/checkout\//);
      await screenshot(page, 'local-checkout-desktop-light');
      await page.locator('form button[type=submit], form input[type=submit]').first().click();
      await page.waitForURL(/\/app\/billing\?checkout=success/);
      await page.getByTestId('upgrade-confirmed').waitFor({ timeout: 30_000 });
      const after = (await user.call('GET', '/me')).json as { bet_capacity: number };
      assert.ok(after.bet_capacity > before.bet_capacity, `${after.bet_capacity} > ${before.bet_capacity}`);
      await page
        .getByTestId('bet-capacity')
        .filter({ hasText: new RegExp(`/${after.bet_capacity}\\b`) })
        .first()
        .waitFor();
      await screenshot(page, 'billing-return-desktop-light');

      // With a plan, the plans page offers the provider's billing portal.
      await clickNavItem(page, 'Plans');
      await page.getByRole('button', { name: 'Change plan or cancel' }).click();
      await page.waitForURL(/\/pay\/local\/portal/);
      await page.getByRole('button', { name: 'Cancel at the end of the period (simulated)' }).waitFor();
      await screenshot(page, 'local-portal-desktop-light');
    });
  });

  test('link chat through the local flow, then unlink', async () => {
    const user = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('chatter'));
    await suite.withPage(async (page) => {
      await suite.logIn(page, user.email);
      await page.goto('/app/notifications');
      await page.getByRole('button', { name: 'Link Telegram' }).click();
      await page.getByTestId('chat-code').waitFor();
      assert.ok((await page.getByLabel('Link code').innerText()).trim().length >= 6);
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'Open the link' }).click()]);
      await popup.waitForLoadState();
      assert.match(popup.url(), /\/chat\/local\/link\//);
      await screenshot(popup, 'local-chat-link-desktop-light');
      await popup.getByRole('button', { name: 'Confirm' }).click();
      await popup.getByText(/^Done/).waitFor();
      await popup.close();
      // The app polls /chat/status until the link is confirmed.
      await page.getByTestId('chat-linked').waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: 'Unlink' }).click();
      await page.getByRole('button', { name: 'Link Telegram' }).waitFor();
    });
  });

  test("a followed trader's bet reaches the notice list, linking to the bet page", async () => {
    const leader = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('noted'));
    const follower = await ApiUser.create(suite.server.baseUrl, suite.uniqueName('reader'));
    await suite.withPage(async (page) => {
      await suite.logIn(page, follower.email);
      await page.goto('/app/notifications');
      await page.getByRole('button', { name: 'Link Telegram' }).click();
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'Open the link' }).click()]);
      await popup.waitForLoadState();
      await popup.getByRole('button', { name: 'Confirm' }).click();
      await popup.getByText(/^Done/).waitFor();
      await popup.close();
      await page.getByTestId('chat-linked').waitFor({ timeout: 20_000 });
      assert.equal((await follower.call('POST', '/follow', { followed_id: leader.id, action: 'follow' })).status, 200);
      const opened = await leader.call('POST', '/bet/open', { ticker: 'TSLA', direction: 'LONG' });
      const betId = (opened.json as { bet_id: number }).bet_id;
      // Delivery is a background worker: reload until the notice is there.
      const notice = page.getByTestId('notices').locator('li', { hasText: 'TSLA' });
      for (let i = 0; i < 30 && (await notice.count()) === 0; i++) {
        await page.waitForTimeout(1000);
        await page.reload();
        await page.getByRole('heading', { name: 'Your notices' }).waitFor();
      }
      await notice.first().getByRole('link', { name: 'See the bet' }).click();
      await page.waitForURL(new RegExp(`/app/bet/${betId}$`));
      await page.getByRole('link', { name: leader.username }).waitFor();
      await page.getByTestId('price-chart').waitFor();
      await screenshot(page, 'bet-desktop-light');
    });
  });

  test('every page at a 375 px phone and at a desktop, with 30-character names, long tickers and large numbers: no page scrolls sideways', async () => {
    // The dark variants of the same walk run in the long suite (test/long/screenshots.test.ts).
    const seeded = await seedPages(suite);
    for (const viewport of ['phone', 'desktop'] as const) {
      await suite.withPage(
        async (page, context) => {
          await walk(page, seeded.visitor, viewport, 'light');
          await seeded.user.signIn(context);
          await walk(page, seeded.member, viewport, 'light');
        },
        { viewport, colorScheme: 'light' },
      );
    }
  });
});
