// Issue 36 item 16 in Chromium: the top bar keeps one line at 1280 px beside a
// 30-character username, its links grouped behind Trade, Community and Account
// disclosure buttons a keyboard drives (Escape closes a group and gives the
// focus back to its button), the unread notices as a bell; on a phone the
// Menu button still opens every link, under its group's name.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BrowserSuite, MAX_USERNAME, clickNavItem, navItem, screenshot, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return `${el?.tagName.toLowerCase()}:${(el?.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
  });
}

describe('issue 36 navigation in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('desktop: one line at 1280 px with a 30-character name; groups open by keyboard, Escape closes and returns the focus; the bell counts unread notices', async () => {
    const user = await suite.user('navd');
    assert.equal(user.username.length, MAX_USERNAME);
    const trader = await suite.user('navt');
    assert.equal((await user.call('POST', '/follow', { followed_id: trader.id, action: 'follow' })).status, 200);
    assert.equal((await trader.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).status, 200);

    await suite.withPage(async (page, context, check) => {
      await user.signIn(context);
      await page.goto('/app/portfolio');
      await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      const account = page.getByRole('button', { name: `Account ${user.username}`, exact: true });
      await account.waitFor();
      // One line: every item of the bar shares the brand's row.
      const brand = await page.getByRole('link', { name: 'Paper Bets' }).boundingBox();
      const bar = await page.locator('header.topbar').boundingBox();
      assert.ok(brand && bar && bar.height < 70, `the top bar is one row: ${bar?.height}px`);
      for (const item of [nav.getByRole('link', { name: 'Markets', exact: true }), account, page.getByRole('button', { name: 'Community' })]) {
        const box = await item.boundingBox();
        assert.ok(box && Math.abs(box.y + box.height / 2 - (brand.y + brand.height / 2)) < 12, 'an item of the bar sits on the brand’s line');
      }
      // The bell: named Notices with its unread count, the number shown.
      const bell = nav.getByRole('link', { name: /^Notices/ });
      await page.getByTestId('unread-count').filter({ hasText: '1' }).waitFor();
      assert.equal(
        await bell.locator('.nav-bell-label').evaluate((el) => el.getBoundingClientRect().width <= 1),
        true,
        'the word is for screen readers, the bell shows',
      );
      assert.match((await bell.textContent()) ?? '', /Notices\s*1\s*unread/);
      await screenshot(page, 'navigation-desktop-light');

      // Trade: a disclosure. Its links are hidden until it opens.
      const trade = page.getByRole('button', { name: 'Trade' });
      const history = nav.getByRole('link', { name: 'History', exact: true });
      assert.equal(await history.isVisible(), false);
      assert.equal(await trade.getAttribute('aria-expanded'), 'false');
      await trade.focus();
      await page.keyboard.press('Enter');
      assert.equal(await trade.getAttribute('aria-expanded'), 'true');
      await history.waitFor();
      await check('the Trade group open');
      await screenshot(page, 'navigation-trade-open-desktop-light');
      // Tab walks into the group's links; Escape closes it and the focus returns to its button.
      await page.keyboard.press('Tab');
      assert.equal(await focusedName(page), 'a:Portfolio');
      await page.keyboard.press('Escape');
      assert.equal(await trade.getAttribute('aria-expanded'), 'false');
      assert.equal(await focusedName(page), 'button:Trade');
      assert.equal(await history.isVisible(), false);
      // Space opens it again, and a link there navigates and closes it.
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await focusedName(page), 'a:History');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/app\/history$/);
      await page.getByRole('heading', { level: 1, name: 'History' }).waitFor();
      assert.equal(await trade.getAttribute('aria-expanded'), 'false');

      // One group at a time; a click elsewhere closes it; tabbing out of it closes it.
      const community = page.getByRole('button', { name: 'Community' });
      await community.click();
      await nav.getByRole('link', { name: 'Rankings', exact: true }).waitFor();
      await trade.click();
      assert.equal(await community.getAttribute('aria-expanded'), 'false');
      await page.getByRole('heading', { level: 1, name: 'History' }).click();
      assert.equal(await trade.getAttribute('aria-expanded'), 'false');
      await trade.click();
      for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
      assert.equal(await focusedName(page), 'a:Alerts');
      await page.keyboard.press('Tab');
      assert.equal(await trade.getAttribute('aria-expanded'), 'false');

      // Account holds the profile, Settings and Log out.
      await account.click();
      await page.getByRole('link', { name: 'Your profile' }).waitFor();
      await check('the Account group open');
      await page.keyboard.press('Escape');
      assert.equal(await focusedName(page), `button:Account ${user.username}`);
      await account.click();
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/app\/login$/);
    });

    // A visitor's bar: Markets, Community, Plans, Log in and Sign up, on one line too.
    await suite.withPage(async (page) => {
      await page.goto('/app/markets');
      await page.getByRole('link', { name: 'Sign up' }).first().waitFor();
      await page.getByTestId('instrument-list').waitFor();
      const bar = await page.locator('header.topbar').boundingBox();
      assert.ok(bar && bar.height < 70, `the visitor's top bar is one row: ${bar?.height}px`);
      assert.equal(await page.getByRole('button', { name: 'Trade' }).count(), 0);
      await clickNavItem(page, 'Leaderboard');
      await page.waitForURL(/\/app\/leaderboard$/);
    });
  });

  test('phone: the Menu opens every link under its group’s name, the bell reads Notices; Escape folds it and returns the focus to Menu', async () => {
    const user = await suite.user('navp');
    await suite.withPage(
      async (page, context, check) => {
        await user.signIn(context);
        await page.goto('/app/portfolio');
        await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
        const nav = page.getByRole('navigation', { name: 'Main' });
        const menu = page.getByRole('button', { name: 'Menu' });
        assert.equal(await nav.getByRole('link', { name: 'Leagues' }).isVisible(), false);
        await menu.click();
        for (const name of [
          'Markets',
          'Portfolio',
          'History',
          'Alerts',
          'Feed',
          'People',
          'Leaderboard',
          'Rankings',
          'Leagues',
          'Plans',
          'Notices',
        ]) {
          assert.ok(await nav.getByRole('link', { name, exact: true }).isVisible(), `${name} shows in the open menu`);
        }
        for (const name of ['Your profile', 'Settings']) assert.ok(await page.getByRole('link', { name }).isVisible());
        assert.ok(await page.getByRole('button', { name: 'Log out' }).isVisible());
        // The groups' buttons are not needed here; their names head the links.
        assert.equal(await page.getByRole('button', { name: 'Trade' }).isVisible(), false);
        const labels = page.locator('header.topbar .nav-group-label');
        assert.deepEqual(await labels.allTextContents(), ['Trade', 'Community', `Account ${user.username}`]);
        for (const label of await labels.all()) assert.ok(await label.isVisible());
        await check('the phone menu open');
        await screenshot(page, 'navigation-menu-phone-light');
        await nav.getByRole('link', { name: 'Leagues', exact: true }).focus();
        await page.keyboard.press('Escape');
        assert.equal(await menu.getAttribute('aria-expanded'), 'false');
        assert.equal(await focusedName(page), 'button:Menu');
        await menu.click();
        await nav.getByRole('link', { name: 'Rankings', exact: true }).click();
        await page.waitForURL(/\/app\/rankings$/);
        await page.getByRole('heading', { level: 1, name: 'Rankings' }).waitFor();
        await page.locator('header.topbar[data-menu="closed"]').waitFor();
        assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      },
      { viewport: 'phone' },
    );
  });
});
