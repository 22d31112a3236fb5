// Issue 33 item 1, published quotes: at every instant, across quote
// refreshes, every endpoint that shows a price shows the quote in force (the
// one a bet opened at that instant gets), and no answer shows a later one:
// /price, the history's last point, the instrument page, the directory,
// portfolio marks and a bet's mark. Driven by the injected clock over the
// seeded simulated market (it moves every second, so a later quote would show).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CachedPriceService } from '../../src/services/prices.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

// Wednesday 25 November 2026, 10:00 in New York: NYSE is open, so the stock moves too.
const START = Date.parse('2026-11-25T15:00:00Z');

forEachDialect('published quotes', (dialect) => {
  let t: TestApp;
  let user: TestUser;
  before(async () => {
    t = await createTestApp(dialect);
    t.clock.set(START);
    user = await registerAndLogin(t.app);
  });
  after(() => t.close());

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };

  /** Every price an answer shows for `ticker` now, by where it was read. */
  async function shown(ticker: string, betId: number): Promise<Record<string, number>> {
    const price = (await get(`/price/${ticker}`)).price as number;
    const history = (await get(`/price/${ticker}/history?range=1d`)).points as Array<{ t: string; price: number }>;
    const instrument = await get(`/instruments/${ticker}`);
    const listed = ((await get(`/instruments?q=${ticker}`)).instruments as Array<{ symbol: string; quote: { price: number } | null }>).find(
      (i) => i.symbol === ticker,
    );
    const portfolio = (await get('/portfolio')) as Array<{ id: number; current: number }>;
    const bet = await get(`/bet/${betId}`);
    return {
      price,
      historyLast: history.at(-1)!.price,
      instrument: instrument.instrument.quote.price,
      instrumentChartLast: instrument.points.at(-1).price,
      listed: listed!.quote!.price,
      portfolio: portfolio.find((b) => b.id === betId)!.current,
      betMark: bet.exit_price,
    };
  }

  for (const ticker of ['BTC-USD', 'AAPL']) {
    test(`${ticker}: every answer shows the quote in force, across refreshes, and an open right after gets it`, async () => {
      t.clock.set(START);
      const open = await t.app.inject({ method: 'POST', url: '/bet/open', payload: { ticker, direction: 'LONG' }, headers: { cookie: user.cookie } });
      assert.equal(open.statusCode, 200, open.body);
      const betId = open.json().bet_id as number;
      const provider = (t.ctx.prices as CachedPriceService).provider;
      const ttl = t.ctx.config.prices.cacheTtlMs;
      const instants = new Set<number>();
      let moved = 0;
      let previous: number | null = null;
      // Three quote lifetimes, one second at a time: every instant sees a refresh come or go.
      for (let s = 0; s <= (3 * ttl) / 1000; s++) {
        t.clock.set(START + s * 1000);
        const quote = await t.ctx.prices.quote(ticker);
        instants.add(quote.at);
        assert.ok(quote.at <= t.clock.now(), 'a quote is never dated after now');
        // The quote is the market's price at its own instant: never a price from later.
        assert.equal(quote.price, await provider.priceAt(ticker, quote.at));
        const seen = await shown(ticker, betId);
        for (const [where, p] of Object.entries(seen))
          assert.equal(p, quote.price, `${ticker} at +${s}s: ${where} shows ${p}, the quote is ${quote.price}`);
        // History points are never after the quote's instant, and the last one is the quote itself.
        const history = (await get(`/price/${ticker}/history?range=1d`)).points as Array<{ t: string; price: number }>;
        for (const p of history)
          assert.ok(Date.parse(p.t) <= quote.at, `history point ${p.t} after the quote of ${new Date(quote.at).toISOString()}`);
        assert.equal(Date.parse(history.at(-1)!.t), quote.at);
        const page = await get(`/instruments/${ticker}?range=1d`);
        const chart = page.points as Array<{ t: string }>;
        for (const p of chart) assert.ok(Date.parse(p.t) <= quote.at, `chart point ${p.t} after the quote`);
        // The market is open: the instrument's quote is dated at the quote's own instant, as the chart's last point.
        assert.equal(Date.parse(page.instrument.quote.as_of), quote.at, `${ticker} at +${s}s: as_of`);
        assert.equal(Date.parse(chart.at(-1)!.t), quote.at);
        // An open right after, at the same instant, gets exactly that price.
        const again = await t.app.inject({
          method: 'POST',
          url: '/bet/open',
          payload: { ticker, direction: 'SHORT' },
          headers: { cookie: user.cookie },
        });
        assert.equal(again.statusCode, 200, again.body);
        assert.equal(again.json().entry_price, quote.price);
        const del = await t.app.inject({ method: 'DELETE', url: `/bet/${again.json().bet_id}`, headers: { cookie: user.cookie } });
        assert.equal(del.statusCode, 200, del.body);
        if (previous !== null && previous !== quote.price) moved++;
        previous = quote.price;
      }
      assert.ok(instants.size >= 3, `the walk crossed refreshes (${instants.size} quotes)`);
      assert.ok(moved >= 1, 'the quote moved across refreshes, so a later price would have shown');
      // Every published quote is in the log, at its own instant.
      for (const at of instants) {
        const logged = await t.ctx.prices.quoteAtOrAfter(ticker, at);
        assert.equal(logged.at, at);
      }
    });
  }

  test('a stock on a closed market: every answer shows the last close, the charts end at it, an open gets it', async () => {
    // Saturday 28 November 2026: NYSE closed since Friday's early close (13:00 New York, the day after Thanksgiving).
    const saturday = Date.parse('2026-11-28T18:00:00Z');
    t.clock.set(saturday);
    const open = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      payload: { ticker: 'MSFT', direction: 'LONG' },
      headers: { cookie: user.cookie },
    });
    assert.equal(open.statusCode, 200, open.body);
    const betId = open.json().bet_id as number;
    assert.equal(open.json().entry_price, (await t.ctx.prices.quote('MSFT')).price);
    for (let s = 0; s <= 12; s += 3) {
      t.clock.set(saturday + s * 1000);
      const quote = await t.ctx.prices.quote('MSFT');
      const seen = await shown('MSFT', betId);
      for (const [where, p] of Object.entries(seen)) assert.equal(p, quote.price, `MSFT at +${s}s: ${where}`);
      const page = await get('/instruments/MSFT?range=5d');
      const history = (await get('/price/MSFT/history?range=5d')).points as Array<{ t: string; price: number }>;
      const close = Date.parse(page.instrument.quote.as_of);
      assert.ok(close < saturday, 'dated at the last close');
      assert.equal(Date.parse(history.at(-1)!.t), close, "the history's last point is the instrument's quote, dated alike");
      for (const p of history) assert.ok(Date.parse(p.t) <= close, `no point while the market is closed (${p.t})`);
    }
  });
});
