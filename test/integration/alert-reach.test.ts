// The price alerts' watcher reads, in one statement a pass, what may meet each
// instrument's live alerts in the pass's span (alertReach), on both dialects:
// it fires exactly the alerts a quote of the span meets, at the first such
// quote (levels and moves met exactly included); it evaluates quote by quote
// only the instruments where one may; it moves the marks of the others once a
// minute behind; and an alert that stalled is evaluated again next pass.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readQuote } from '../../src/domain/alerts.js';
import { FakeClock } from '../../src/lib/clock.js';
import { type AlertRow, insertAlert } from '../../src/repositories/alerts.js';
import { appendQuote } from '../../src/repositories/quotes.js';
import { priceAlertsWatcher } from '../../src/services/price-alerts.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { seededRandom } from '../helpers/adversary.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const S = 1000;
const INITIAL = { AAPL: 100, MSFT: 400, NVDA: 800, TSLA: 200, 'ETH-USD': 3000, SPY: 500, AMD: 150 };
type Ticker = keyof typeof INITIAL;

forEachDialect('price alerts: a pass reads what may meet them', (dialect) => {
  let t: TestApp;
  let userId: number;
  let statements: string[] | null = null;
  const prices = new FakePriceProvider({ ...INITIAL });
  const signal = new AbortController().signal;
  before(async () => {
    // Monday 30 November 2026, 11:00 in New York: every stock's previous close is Friday's, its price then the initial one.
    t = await createTestApp(dialect, {
      deps: { prices },
      clock: new FakeClock(Date.parse('2026-11-30T16:00:00Z')),
      onQuery: (s) => statements?.push(s),
    });
    userId = (await registerAndLogin(t.app, 'ar')).id;
  });
  after(() => t.close());

  const alert = (ticker: string, kind: 'above' | 'below' | 'move', value: number, at = t.clock.now()) =>
    insertAlert(t.ctx.db, { user_id: userId, ticker, kind, value, created_at: at, starts_at: at });
  const row = (id: number) => t.ctx.db.selectFrom('price_alerts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  async function reads(fn: () => Promise<unknown>): Promise<string[]> {
    statements = [];
    try {
      await fn();
      return statements.filter((s) => /^\s*select/i.test(s));
    } finally {
      statements = null;
    }
  }
  /** Removes every live alert: each test starts from none. */
  const clear = () => t.ctx.db.updateTable('price_alerts').set({ fired_at: 0 }).where('fired_at', 'is', null).execute();

  test('fires exactly the alerts a quote of the span meets, at the first such quote: above, below and move, met exactly or missed by a cent', async () => {
    const next = seededRandom(dialect === 'sqlite' ? 3 : 5);
    const start = t.clock.now();
    const tickers: Ticker[] = ['AAPL', 'MSFT', 'NVDA', 'ETH-USD'];
    const quotes = new Map<string, Array<{ price: number; at: number }>>();
    for (const ticker of tickers) {
      const list = [];
      for (let k = 1; k <= 8; k++) list.push({ price: Math.round(INITIAL[ticker] * (0.94 + next() * 0.12) * 100) / 100, at: start + k * 5 * S });
      quotes.set(ticker, list);
    }
    const alerts: AlertRow[] = [];
    for (const ticker of tickers) {
      const list = quotes.get(ticker)!;
      const ps = list.map((q) => q.price);
      const hi = Math.max(...ps);
      const lo = Math.min(...ps);
      const changes = ps.map((p) => Math.abs(readQuote({ kind: 'move', value: 0 }, p, INITIAL[ticker]).changePercent!));
      const move = Math.max(...changes);
      const mid = ps[Math.floor(next() * ps.length)]!;
      for (const [kind, value] of [
        ['above', hi],
        ['above', Math.round((hi + 0.01) * 100) / 100],
        ['above', mid],
        ['below', lo],
        ['below', Math.round((lo - 0.01) * 100) / 100],
        ['below', mid],
        ['move', move],
        ['move', Math.round((move + 0.01) * 100) / 100],
        ['move', 50],
      ] as const) {
        alerts.push(await alert(ticker, kind, value, start));
      }
    }
    for (const ticker of tickers) for (const q of quotes.get(ticker)!) await appendQuote(t.ctx.db, ticker, q);
    t.clock.advance(45 * S);
    const done = await priceAlertsWatcher(t.ctx).evaluate(tickers, t.clock.now(), signal);
    assert.deepEqual(done.failures, []);
    let expectedFired = 0;
    for (const a of alerts) {
      const first = quotes.get(a.ticker)!.find((q) => readQuote({ kind: a.kind, value: a.value }, q.price, INITIAL[a.ticker as Ticker]).met);
      const got = await row(a.id);
      if (first) expectedFired++;
      assert.deepEqual(
        { fired_at: got.fired_at === null ? null : Number(got.fired_at), fired_price: got.fired_price === null ? null : Number(got.fired_price) },
        { fired_at: first?.at ?? null, fired_price: first?.price ?? null },
        `${a.ticker} ${a.kind} ${a.value}`,
      );
    }
    assert.equal(done.fired, expectedFired);
    assert.ok(expectedFired >= tickers.length * 4, `the exact levels and moves all fired (${expectedFired})`);
    await clear();
  });

  test('each kind alone on its instrument, met exactly at its lowest or highest quote, fires', async () => {
    const start = t.clock.now();
    const cases: Array<{ ticker: Ticker; kind: 'above' | 'below' | 'move'; value: number; prices: number[]; fires: number }> = [
      { ticker: 'AAPL', kind: 'above', value: 104, prices: [101, 104, 102], fires: 104 },
      { ticker: 'MSFT', kind: 'below', value: 396, prices: [399, 396, 398], fires: 396 },
      { ticker: 'NVDA', kind: 'move', value: 5, prices: [800, 760, 790], fires: 760 },
      { ticker: 'TSLA', kind: 'move', value: 5, prices: [200, 210, 205], fires: 210 },
      { ticker: 'ETH-USD', kind: 'move', value: 5, prices: [3000, 2850, 2900], fires: 2850 },
    ];
    const ids: number[] = [];
    for (const c of cases) ids.push((await alert(c.ticker, c.kind, c.value, start)).id);
    for (const c of cases) for (const [k, price] of c.prices.entries()) await appendQuote(t.ctx.db, c.ticker, { price, at: start + (k + 1) * 5 * S });
    t.clock.advance(20 * S);
    const done = await priceAlertsWatcher(t.ctx).evaluate(
      cases.map((c) => c.ticker),
      t.clock.now(),
      signal,
    );
    assert.deepEqual(done, { fired: cases.length, failures: [] });
    for (const [i, c] of cases.entries()) assert.equal(Number((await row(ids[i]!)).fired_price), c.fires, `${c.ticker} ${c.kind}`);
    await clear();
  });

  test("a pass over far alerts reads them in one statement, whatever the instruments; a near one's instrument alone is read quote by quote", async () => {
    const tickers: Ticker[] = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'SPY'];
    for (const ticker of tickers) {
      await alert(ticker, 'above', INITIAL[ticker] * 5);
      await alert(ticker, 'below', INITIAL[ticker] / 5);
      await alert(ticker, 'move', 60);
    }
    const watcher = priceAlertsWatcher(t.ctx);
    const publishAll = async (msft = 400) => {
      t.clock.advance(5 * S);
      for (const ticker of tickers) await appendQuote(t.ctx.db, ticker, { price: ticker === 'MSFT' ? msft : INITIAL[ticker], at: t.clock.now() });
    };
    await publishAll();
    const first = await reads(() => watcher.evaluate(tickers, t.clock.now(), signal));
    assert.equal(first.length, 2, `where the first pass starts, then what may meet the alerts:\n${first.join('\n')}`);
    await publishAll();
    const quiet = await reads(() => watcher.evaluate(tickers, t.clock.now(), signal));
    assert.equal(quiet.length, 1, `one statement for ${tickers.length} instruments' alerts:\n${quiet.join('\n')}`);
    const near = await alert('MSFT', 'above', 401);
    await publishAll(402);
    let done: Awaited<ReturnType<typeof watcher.evaluate>> | null = null;
    const crossing = await reads(async () => {
      done = await watcher.evaluate(tickers, t.clock.now(), signal);
    });
    assert.deepEqual(done, { fired: 1, failures: [] });
    assert.equal(Number((await row(near.id)).fired_price), 402);
    const perTicker = crossing.filter((s) => /from "(price_alerts|quotes)" where "ticker" = /i.test(s));
    assert.equal(perTicker.length, 2, `MSFT's alerts and quotes alone:\n${perTicker.join('\n')}`);
    await clear();
  });

  test("a quiet instrument's alerts have their marks moved to the pass once a minute behind, not before", async () => {
    const a = await alert('TSLA', 'above', 10_000);
    const watcher = priceAlertsWatcher(t.ctx);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(10 * S);
      await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
      await watcher.evaluate(['TSLA'], t.clock.now(), signal);
      assert.equal((await row(a.id)).checked_until, null, `${(i + 1) * 10} s after it was set`);
    }
    t.clock.advance(10 * S);
    await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
    await watcher.evaluate(['TSLA'], t.clock.now(), signal);
    assert.equal(Number((await row(a.id)).checked_until), t.clock.now(), 'a minute after it was set: moved to the pass');
    const marked = t.clock.now();
    t.clock.advance(10 * S);
    await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
    await watcher.evaluate(['TSLA'], t.clock.now(), signal);
    assert.equal(Number((await row(a.id)).checked_until), marked, 'not every pass');
    await clear();
  });

  test('a move alert that stalled on an unknown previous close is evaluated again next pass, after its quote left the span, and fires at it', async () => {
    // An instrument no earlier test read a previous close of: none is kept yet.
    const a = await alert('AMD', 'move', 5);
    const watcher = priceAlertsWatcher(t.ctx);
    t.clock.advance(5 * S);
    const crossing = t.clock.now();
    await appendQuote(t.ctx.db, 'AMD', { price: 159, at: crossing });
    prices.failing.add('AMD');
    try {
      t.clock.advance(70 * S);
      const stalled = await watcher.evaluate(['AMD'], t.clock.now(), signal);
      assert.deepEqual(stalled, { fired: 0, failures: [] });
      assert.equal((await row(a.id)).fired_at, null);
    } finally {
      prices.failing.delete('AMD');
    }
    // The next span starts a minute before the last pass: after the crossing quote. Its own quote moves nothing.
    t.clock.advance(5 * S);
    await appendQuote(t.ctx.db, 'AMD', { price: 150, at: t.clock.now() });
    const done = await watcher.evaluate(['AMD'], t.clock.now(), signal);
    assert.deepEqual(done, { fired: 1, failures: [] });
    const fired = await row(a.id);
    assert.deepEqual([Number(fired.fired_at), Number(fired.fired_price), Number(fired.fired_change_percent)], [crossing, 159, 6]);
    await clear();
  });

  test('after a spell with nothing live, the next alert is evaluated from its own start, not from the last pass before the spell', async () => {
    const watcher = priceAlertsWatcher(t.ctx);
    await alert('TSLA', 'above', 5_000);
    t.clock.advance(5 * S);
    await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
    assert.deepEqual(await watcher.evaluate(['TSLA'], t.clock.now(), signal), { fired: 0, failures: [] });
    await clear();
    // The job hands a watcher with nothing live no tickers; meanwhile the price went far and came back.
    assert.deepEqual(await watcher.evaluate([], t.clock.now(), signal), { fired: 0, failures: [] });
    t.clock.advance(30 * 60 * S);
    await appendQuote(t.ctx.db, 'TSLA', { price: 10_000, at: t.clock.now() });
    t.clock.advance(30 * 60 * S);
    const a = await alert('TSLA', 'above', 5_000);
    t.clock.advance(5 * S);
    await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
    let done: Awaited<ReturnType<typeof watcher.evaluate>> | null = null;
    const read = await reads(async () => {
      done = await watcher.evaluate(['TSLA'], t.clock.now(), signal);
    });
    assert.deepEqual(done, { fired: 0, failures: [] });
    const perTicker = read.filter((s) => /from "(price_alerts|quotes)" where "ticker" = /i.test(s));
    assert.deepEqual(perTicker, [], 'the quote of an hour ago, before the alert, is not in its span');
    assert.equal((await row(a.id)).fired_at, null);
    await clear();
  });
});
