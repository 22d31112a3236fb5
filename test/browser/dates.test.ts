// Issue 36 item 15 in Chromium at both sizes, in a New York browser: an open
// bet with a target date says when it settles ("Mon 30 Nov, 4:00 PM EST") on
// the portfolio, the bet page and in the form; every instant is written one
// way; prices name their currency (USD, as every instrument of the universe);
// the Leaderboard and Rankings open on the same window (all time).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatInstant, formatQuote } from '../../web/src/lib/format.js';
import { settlementHint, settlementOf } from '../../web/src/lib/settlement.js';
import { BrowserSuite, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

const ZONE = 'America/New_York';
/** "Mon 30 Nov, 4:00 PM EST", with the year when it is not this one. */
const ONE_FORMAT = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)( \d{4})?, \d{1,2}:\d{2} (AM|PM) E[SD]T$/;

function daysAhead(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
}

describe('issue 36 dates and units in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`${viewport}: settlement stated concretely in the user's zone, one date format, prices in USD, both boards on all time`, async () => {
      const user = await suite.user(`date${viewport[0]}`);
      const stockDate = daysAhead(9);
      const cryptoDate = daysAhead(4);
      const stock = (await user.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG', target_date: stockDate })).json as {
        bet_id: number;
        entry_price: number;
      };
      const crypto = (await user.call('POST', '/bet/open', { ticker: 'BTC-USD', direction: 'SHORT', target_date: cryptoDate })).json as {
        bet_id: number;
      };
      assert.ok(stock.bet_id && crypto.bet_id);
      await suite.withPage(
        async (page, context, check) => {
          await user.signIn(context);
          await page.goto('/app/portfolio');
          const row = (id: number) => page.getByTestId(`bet-row-${id}`);
          await row(stock.bet_id).waitFor();
          // The portfolio: when each settles, in New York time; the opening instant in the same words.
          const stockSettles = settlementOf('AAPL', stockDate, ZONE);
          assert.match(stockSettles, ONE_FORMAT);
          assert.match(stockSettles, /4:00 PM E[SD]T$/);
          assert.equal((await row(stock.bet_id).getByTestId('settles').textContent())?.trim(), stockSettles);
          const cryptoSettles = settlementOf('BTC-USD', cryptoDate, ZONE);
          assert.match(cryptoSettles, /(7|8):00 PM E[SD]T$/, 'crypto: 00:00 UTC after the date, the evening before in New York');
          assert.equal((await row(crypto.bet_id).getByTestId('settles').textContent())?.trim(), cryptoSettles);
          const opened = (await row(stock.bet_id).locator('td[data-label=Opened]').textContent())?.trim() ?? '';
          assert.match(opened, ONE_FORMAT);
          assert.ok(await page.getByRole('columnheader', { name: 'Entry (USD)', includeHidden: true }).count());
          // Each page's own accessibility check finishes before the next navigation.
          await check('the portfolio');

          // The bet page: the same settlement, the target date, and the prices with their currency.
          await page.goto(`/app/bet/${stock.bet_id}`);
          await page.getByTestId('settles').filter({ hasText: stockSettles }).waitFor();
          await page.getByText(`Entry`).first().waitFor();
          await page.getByText(formatQuote(stock.entry_price)).first().waitFor();
          await page.getByText(/^target date (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}$/).waitFor();
          const openedAt = page.locator('.stat', { hasText: 'Opened' }).locator('.stat-value');
          assert.match((await openedAt.textContent())?.trim() ?? '', ONE_FORMAT);
          await check('the bet page');

          // The form: the settlement of the date typed, in the same words; the price in USD.
          await page.goto('/app/markets?ticker=AAPL');
          await page.getByTestId('ticker-price').filter({ hasText: /\d/ }).waitFor();
          await page.locator('.price-big').filter({ hasText: /USD$/ }).waitFor();
          await page.getByTestId('price-currency').filter({ hasText: 'Prices in US dollars (USD).' }).waitFor();
          await page.getByLabel('Target date (optional)').fill(stockDate);
          const hint = settlementHint('stock', stockDate, ZONE);
          assert.ok(hint.includes(stockSettles));
          await page.getByText(hint).waitFor();
          await check('the form with a target date');

          // The two boards open on the same window.
          await page.goto('/app/leaderboard');
          await page.getByRole('heading', { level: 1, name: 'Leaderboard' }).waitFor();
          await page.getByRole('button', { name: 'All time', pressed: true }).waitFor();
          await check('the leaderboard');
          await page.goto('/app/rankings');
          await page.getByRole('button', { name: 'All time', pressed: true }).waitFor();
          assert.equal(await page.getByRole('button', { name: '90 days', pressed: true }).count(), 0);
        },
        { viewport, timezoneId: ZONE },
      );
    });
  }

  test('one format for an instant, in the zone asked for', () => {
    const now = Date.parse('2026-11-29T00:00:00Z');
    assert.equal(formatInstant(Date.parse('2026-11-30T21:00:00Z'), ZONE, now), 'Mon 30 Nov, 4:00 PM EST');
    assert.equal(formatInstant(Date.parse('2026-12-01T00:00:00Z'), 'UTC', now), 'Tue 1 Dec, 12:00 AM UTC');
  });
});
