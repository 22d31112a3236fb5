// Issue 33 items 2 and 5: committed prices and settlement at the promised
// instant, driven by the injected clock and a price provider the test sets.
// The commitments job commits a bet at the first quote published at or after
// the end of its cancel window (publishing one when none exists, never a
// stand-in when the provider fails); a close after the window commits first;
// a bet due at a target instant settles at that instant's first quote, dated
// that instant, however late the settlement pass runs, and a close or cancel
// in between answers 400 and changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CANCEL_WINDOW_MS, percentageGain } from '../../src/domain/bets.js';
import { commitDueBets, pruneOldQuotes, QUOTE_RETENTION_MS } from '../../src/jobs/commitments.js';
import { settleDue } from '../../src/jobs/settlement.js';
import { findBetById } from '../../src/repositories/bets.js';
import { firstQuoteAtOrAfter } from '../../src/repositories/quotes.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const S = 1000;
const MIN = 60 * S;

forEachDialect('committed prices and settlement at the due instant', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, NVDA: 100, 'BTC-USD': 50_000, 'ETH-USD': 3000, SPY: 500 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
  });
  after(() => t.close());

  const at = (iso: string, plus = 0) => Date.parse(iso) + plus;
  async function userAt(when: number): Promise<TestUser> {
    t.clock.set(when);
    return registerAndLogin(t.app);
  }
  async function openAt(user: TestUser, when: number, body: Record<string, unknown>): Promise<number> {
    t.clock.set(when);
    const res = await t.app.inject({ method: 'POST', url: '/bet/open', payload: body, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  async function closeAt(user: TestUser, when: number, id: number) {
    t.clock.set(when);
    return t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: id }, headers: { cookie: user.cookie } });
  }
  async function cancelAt(user: TestUser, when: number, id: number) {
    t.clock.set(when);
    return t.app.inject({ method: 'DELETE', url: `/bet/${id}`, headers: { cookie: user.cookie } });
  }
  /** A request for the price at `when`: publishes a quote when the one in force has expired. */
  async function askAt(user: TestUser, when: number, ticker: string): Promise<number> {
    t.clock.set(when);
    const res = await t.app.inject({ method: 'GET', url: `/price/${ticker}`, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().price;
  }
  async function commitAt(when: number) {
    t.clock.set(when);
    return commitDueBets(t.ctx, quiet);
  }
  async function settleAt(when: number) {
    t.clock.set(when);
    return settleDue(t.ctx, quiet);
  }
  const bet = async (id: number) => (await findBetById(t.ctx.db, id))!;

  test('the job commits a bet within its pass after the window, at a quote it publishes when none exists; the benchmark beside it', async () => {
    const t0 = at('2026-11-25T15:00:00Z');
    const u = await userAt(t0);
    prices.set('NVDA', 100);
    const id = await openAt(u, t0, { ticker: 'NVDA', direction: 'LONG' });
    prices.set('NVDA', 104);
    await commitAt(t0 + CANCEL_WINDOW_MS - S);
    assert.equal((await bet(id)).committed_price, null, 'not before the end of the window');
    prices.set('NVDA', 110);
    prices.set('SPY', 505);
    const r = await commitAt(t0 + CANCEL_WINDOW_MS + 1);
    assert.ok(r.committed >= 1);
    const b = await bet(id);
    assert.equal(b.committed_price, 110, 'a quote published by the pass, at or after the instant');
    assert.equal(b.benchmark_committed, 505);
    const q = await firstQuoteAtOrAfter(t.ctx.db, 'NVDA', t0 + CANCEL_WINDOW_MS);
    assert.deepEqual(q, { price: 110, at: t0 + CANCEL_WINDOW_MS + 1 }, 'logged, at the pass');
    // Committed once: a later pass at another price changes nothing.
    prices.set('NVDA', 120);
    await commitAt(t0 + CANCEL_WINDOW_MS + 10 * S);
    assert.equal((await bet(id)).committed_price, 110);
    prices.set('SPY', 500);
  });

  test('a provider failure leaves the bet uncommitted, never at a stand-in; the next pass commits it', async () => {
    const t0 = at('2026-11-25T16:00:00Z');
    const u = await userAt(t0);
    prices.set('MSFT', 400);
    const id = await openAt(u, t0, { ticker: 'MSFT', direction: 'SHORT' });
    // A quote from inside the window is in the cache and the log: it must not stand in.
    prices.set('MSFT', 401);
    await askAt(u, t0 + CANCEL_WINDOW_MS - 2 * S, 'MSFT');
    prices.failing.add('MSFT');
    try {
      const r = await commitAt(t0 + CANCEL_WINDOW_MS + S);
      assert.ok(r.deferred >= 1);
      assert.equal((await bet(id)).committed_price, null, 'not yet committed');
      await commitAt(t0 + CANCEL_WINDOW_MS + 2 * S);
      assert.equal((await bet(id)).committed_price, null);
    } finally {
      prices.failing.delete('MSFT');
    }
    prices.set('MSFT', 390);
    await commitAt(t0 + CANCEL_WINDOW_MS + 3 * S);
    assert.equal((await bet(id)).committed_price, 390);
  });

  test('a quote a request published between the instant and the job is the one committed', async () => {
    const t0 = at('2026-11-25T17:00:00Z');
    const u = await userAt(t0);
    prices.set('AAPL', 100);
    const id = await openAt(u, t0, { ticker: 'AAPL', direction: 'LONG' });
    prices.set('AAPL', 130);
    assert.equal(await askAt(u, t0 + CANCEL_WINDOW_MS + S, 'AAPL'), 130);
    prices.set('AAPL', 140);
    await commitAt(t0 + CANCEL_WINDOW_MS + 30 * S);
    assert.equal((await bet(id)).committed_price, 130);
    prices.set('AAPL', 100);
  });

  test('a close after the window commits first, at a quote no later than the exit; ranked gain runs committed → exit', async () => {
    const t0 = at('2026-11-25T18:00:00Z');
    const u = await userAt(t0);
    prices.set('AAPL', 100);
    const id = await openAt(u, t0, { ticker: 'AAPL', direction: 'LONG' });
    prices.set('AAPL', 120);
    await askAt(u, t0 + CANCEL_WINDOW_MS + MIN, 'AAPL'); // published after the instant; the job has not run
    prices.set('AAPL', 150);
    const res = await closeAt(u, t0 + CANCEL_WINDOW_MS + 10 * MIN, id);
    assert.equal(res.statusCode, 200, res.body);
    const b = await bet(id);
    assert.equal(b.committed_price, 120);
    assert.equal(b.exit_price, 150);
    assert.equal(b.percentage_gain, 50, "the bet's own gain stays entry → exit");
    assert.equal(b.ranked_gain, percentageGain('LONG', 120, 150));
    const committed = await firstQuoteAtOrAfter(t.ctx.db, 'AAPL', t0 + CANCEL_WINDOW_MS);
    assert.ok(committed && committed.at <= b.closed_at!, 'the committed quote is no later than the exit');
    // With no quote published since the instant, the close's own quote is both (ranked gain 0), never an earlier one.
    const t1 = at('2026-11-25T19:00:00Z');
    prices.set('AAPL', 100);
    const id2 = await openAt(u, t1, { ticker: 'AAPL', direction: 'SHORT' });
    prices.set('AAPL', 90);
    assert.equal((await closeAt(u, t1 + CANCEL_WINDOW_MS + 20 * S, id2)).statusCode, 200);
    const b2 = await bet(id2);
    assert.equal(b2.committed_price, 90);
    assert.equal(b2.ranked_gain, 0);
    prices.set('AAPL', 100);
  });

  test('a close inside the window has no committed price and no ranked gain; a cancel neither', async () => {
    const t0 = at('2026-11-25T20:00:00Z');
    const u = await userAt(t0);
    prices.set('MSFT', 400);
    const closed = await openAt(u, t0, { ticker: 'MSFT', direction: 'LONG' });
    const cancelled = await openAt(u, t0, { ticker: 'MSFT', direction: 'LONG' });
    prices.set('MSFT', 420);
    assert.equal((await closeAt(u, t0 + CANCEL_WINDOW_MS - S, closed)).statusCode, 200);
    assert.equal((await cancelAt(u, t0 + CANCEL_WINDOW_MS - S, cancelled)).statusCode, 200);
    await commitAt(t0 + CANCEL_WINDOW_MS + S);
    for (const id of [closed, cancelled]) {
      const b = await bet(id);
      assert.equal(b.committed_price, null);
      assert.equal(b.ranked_gain, null);
    }
    assert.equal((await bet(closed)).percentage_gain, 5, 'still a SPEC close: entry → exit');
    prices.set('MSFT', 400);
  });

  test("settlement runs 10 minutes late: exit price and date are the due instant's; a close or cancel in between answers 400", async () => {
    const u = await userAt(at('2026-12-01T10:00:00Z'));
    prices.set('ETH-USD', 3000);
    const id = await openAt(u, at('2026-12-01T10:00:00Z'), { ticker: 'ETH-USD', direction: 'LONG', target_date: '2026-12-01' });
    const idle = await openAt(u, at('2026-12-01T10:00:00Z'), { ticker: 'ETH-USD', direction: 'SHORT', target_date: '2026-12-01' });
    await commitAt(at('2026-12-01T10:05:01Z'));
    const due = at('2026-12-02T00:00:00Z');
    assert.equal((await bet(id)).settle_at, due);
    prices.set('ETH-USD', 3300);
    await commitAt(due + 2 * S); // publishes the due instant's quote within seconds of it
    prices.set('ETH-USD', 3600);
    const close = await closeAt(u, due + 5 * MIN, id);
    assert.equal(close.statusCode, 400, close.body);
    assert.equal(close.json().error, 'Bet is not open');
    const cancel = await cancelAt(u, due + 6 * MIN, id);
    assert.equal(cancel.statusCode, 400, cancel.body);
    for (const b of [await bet(id)]) {
      assert.equal(b.status, 'CLOSED');
      assert.equal(b.close_reason, 'settlement');
      assert.equal(b.exit_price, 3300, "the due instant's quote, never a later one");
      assert.equal(b.closed_at, due);
    }
    // The other bet is settled by the pass, late, at the same quote and instant.
    const r = await settleAt(due + 10 * MIN);
    assert.ok(r.settled >= 1);
    const b = await bet(idle);
    assert.equal(b.exit_price, 3300);
    assert.equal(b.closed_at, due);
    assert.equal(b.percentage_gain, percentageGain('SHORT', 3000, 3300));
    assert.equal(b.ranked_gain, percentageGain('SHORT', 3000, 3300), 'committed at 3000 at 10:05');
    prices.set('ETH-USD', 3000);
  });

  test('a crypto bet opened at 23:57 with a same-day target settles at 00:00 inside its window and is never ranked', async () => {
    const t0 = at('2026-12-03T23:57:00Z');
    const u = await userAt(t0);
    prices.set('ETH-USD', 3000);
    const id = await openAt(u, t0, { ticker: 'ETH-USD', direction: 'LONG', target_date: '2026-12-03' });
    const other = await openAt(u, t0, { ticker: 'ETH-USD', direction: 'LONG', target_date: '2026-12-03' });
    const due = at('2026-12-04T00:00:00Z');
    prices.set('ETH-USD', 2900);
    await commitAt(due + S);
    prices.set('ETH-USD', 3100);
    // Still inside its cancel window (until 00:02): a cancel of the losing bet is refused, it stays settled at 00:00's quote.
    const cancel = await cancelAt(u, due + MIN, id);
    assert.equal(cancel.statusCode, 400, cancel.body);
    let b = await bet(id);
    assert.equal(b.status, 'CLOSED');
    assert.equal(b.exit_price, 2900);
    assert.equal(b.closed_at, due);
    // The other is settled by a late pass at the same quote; the commitments job never commits either.
    await commitAt(due + 6 * MIN);
    await settleAt(due + 10 * MIN);
    for (const x of [id, other]) {
      b = await bet(x);
      assert.equal(b.status, 'CLOSED');
      assert.equal(b.exit_price, 2900);
      assert.equal(b.closed_at, due);
      assert.equal(b.committed_price, null);
      assert.equal(b.ranked_gain, null, 'finished before its committed instant: never ranked');
    }
    prices.set('ETH-USD', 3000);
  });

  test('a stock bet with a same-day target opened after the close settles at a quote and instant no earlier than its opening', async () => {
    const t0 = at('2026-11-25T22:00:00Z');
    const u = await userAt(t0);
    prices.set('AAPL', 100);
    const id = await openAt(u, t0, { ticker: 'AAPL', direction: 'LONG', target_date: '2026-11-25' });
    await settleAt(t0 + MIN);
    const b = await bet(id);
    assert.equal(b.status, 'CLOSED');
    assert.ok(b.closed_at! >= b.opened_at, `closed ${b.closed_at} before opened ${b.opened_at}`);
    assert.equal(b.exit_price, 100);
  });
});

forEachDialect('quote pruning', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices } });
  });
  after(() => t.close());

  test('keeps every quote a pending commit or settlement needs, drops the rest after the retention', async () => {
    const t0 = Date.parse('2026-11-25T15:00:00Z');
    t.clock.set(t0);
    const u = await registerAndLogin(t.app);
    const ask = async (when: number, ticker: string) => {
      t.clock.set(when);
      const res = await t.app.inject({ method: 'GET', url: `/price/${ticker}`, headers: { cookie: u.cookie } });
      assert.equal(res.statusCode, 200, res.body);
    };
    await ask(t0 - 10 * MIN, 'AAPL'); // needed by nothing
    t.clock.set(t0);
    const open = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      payload: { ticker: 'AAPL', direction: 'LONG' },
      headers: { cookie: u.cookie },
    });
    const id = open.json().bet_id as number;
    prices.set('AAPL', 111);
    await ask(t0 + CANCEL_WINDOW_MS + S, 'AAPL'); // the bet's committed quote; the job has not run
    prices.set('AAPL', 150);
    t.clock.set(t0 + QUOTE_RETENTION_MS + 86_400_000);
    const dropped = await pruneOldQuotes(t.ctx);
    assert.ok(dropped >= 1);
    // The quotes before the pending bet's committed instant are gone, the one at or after it is kept.
    assert.equal((await firstQuoteAtOrAfter(t.ctx.db, 'AAPL', t0 - 10 * MIN))?.at, t0 + CANCEL_WINDOW_MS + S);
    await commitDueBets(t.ctx, { info: () => undefined, warn: () => undefined, error: () => undefined });
    assert.equal((await findBetById(t.ctx.db, id))?.committed_price, 111, 'the quote the pending instant needed was kept');
  });

  test('pruning in slices of 3 (instants shared by several tickers) deletes what one statement would, and no more', async () => {
    // Nothing pending is older than these quotes: only the retention bounds the pruning.
    await t.ctx.db.deleteFrom('quotes').execute();
    const base = Date.parse('2026-01-05T00:00:00Z');
    const rows = [];
    for (let i = 0; i < 11; i++)
      for (const ticker of i % 2 ? ['T1', 'T2', 'T3'] : ['T1']) rows.push({ ticker, published_at: base + i * S, price: i });
    await t.ctx.db.insertInto('quotes').values(rows).execute();
    const cutoff = base + 7 * S;
    const expected = rows.filter((r) => r.published_at >= cutoff).length;
    t.clock.set(cutoff + QUOTE_RETENTION_MS);
    const dropped = await pruneOldQuotes(t.ctx, 3);
    assert.equal(dropped, rows.length - expected);
    const left = await t.ctx.db.selectFrom('quotes').select(['ticker', 'published_at']).orderBy('published_at').orderBy('ticker').execute();
    assert.equal(left.length, expected);
    assert.ok(left.every((r) => Number(r.published_at) >= cutoff));
  });
});
