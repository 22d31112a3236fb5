// The Notices page in Chromium for a user without any chat linked: a
// followed trader's bets are listed with no address in their text, the
// navigation shows the unread count, and reading the page marks them read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNoSidewaysScroll, BrowserSuite, screenshot, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

describe('notices in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('a user without Telegram sees a followed trader’s bets, the unread count, and reading marks them read', async () => {
    const trader = await suite.user('loud');
    const reader = await suite.user('quiet');
    assert.equal((await reader.call('POST', '/follow', { followed_id: trader.id, action: 'follow' })).status, 200);
    const opened = (await trader.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).json as { bet_id: number };
    assert.equal((await trader.call('DELETE', `/bet/${opened.bet_id}`)).status, 200);
    assert.equal((await trader.call('POST', '/bet/open', { ticker: 'MSFT', direction: 'SHORT' })).status, 200);

    await suite.withPage(async (page, context) => {
      await reader.signIn(context);
      await page.goto('/app/portfolio');
      const count = page.getByTestId('unread-count').first();
      await count.waitFor();
      assert.equal((await count.innerText()).trim(), '3');

      await page.goto('/app/notifications');
      const items = page.getByTestId('notices').locator('li');
      await items.nth(2).waitFor();
      const texts = await items.allInnerTexts();
      assert.match(texts[0]!, new RegExp(`${trader.username} opened SHORT MSFT`));
      assert.match(texts[1]!, new RegExp(`${trader.username} cancelled the LONG AAPL bet`));
      assert.match(texts[2]!, new RegExp(`${trader.username} opened LONG AAPL`));
      for (const t of texts) assert.doesNotMatch(t, /https?:\/\/|\/stop|Telegram/);
      await screenshot(page, 'notices-desktop-light');
      await assertNoSidewaysScroll(page, 'notices');

      // Seen: the count leaves the navigation, and the server agrees.
      await count.waitFor({ state: 'detached' });
      const state = (await reader.call('GET', '/notifications/unread')).json as { unread: number };
      assert.equal(state.unread, 0);

      await items.nth(1).getByRole('link', { name: 'See the bet' }).click();
      await page.waitForURL(new RegExp(`/app/bet/${opened.bet_id}$`));
    });
  });
});
