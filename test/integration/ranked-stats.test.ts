// Trader statistics' scored figures (ranked gains only) beside the raw ones,
// the early-close figures, and a bet's ranked state on GET /bet/{bet_id}, all
// driven through the API with the injected clock past the cancel window.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { insertTestBets } from '../helpers/bet-rows.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const S = 1000;
const M = 60 * S;
/** Past the quote cache (PRICE_CACHE_MS, 5 s): the next read publishes the provider's new price. */
const PAST_CACHE = 10 * S;
/** Equal within the statistics' rounding (6 decimals). */
const near = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= 1e-6, `${what}: ${actual} ≉ ${expected}`);

forEachDialect('ranked trader statistics and bet detail', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, SPY: 500 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 20, baseFollows: 5 } } });
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: object) =>
    t.app.inject({ method, url, payload, headers: user ? { cookie: user.cookie } : {} });
  async function open(u: TestUser): Promise<{ id: number; openedAt: number }> {
    const res = await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(res.statusCode, 200, res.body);
    return { id: res.json().bet_id, openedAt: t.clock.now() };
  }
  async function close(u: TestUser, id: number) {
    const res = await call('POST', '/bet/close', u, { bet_id: id });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  /** Moves the market: the next quote after the cache time is `price`. */
  function move(price: number, ms = PAST_CACHE) {
    prices.set('AAPL', price);
    t.clock.advance(ms);
  }
  async function detail(id: number) {
    const res = await call('GET', `/bet/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const iso = (ms: number) => new Date(ms).toISOString();

  test('a close inside the window, a close after it, a cancel: scored figures use only the ranked bet, raw ones every close', async () => {
    t.clock.advance(60 * M); // a fresh hour of the test's time; quotes of earlier tests are long stale
    prices.set('AAPL', 100);
    t.clock.advance(PAST_CACHE);
    const u = await registerAndLogin(t.app);

    // 1. Opened at 100, closed 10 s later at 110: +10 raw, inside the window, never ranked.
    const early = await open(u);
    move(110);
    assert.equal((await close(u, early.id)).gain_percent, 10);
    const e = await detail(early.id);
    assert.equal(e.status, 'CLOSED');
    assert.equal(e.percentage_gain, 10, 'the bet keeps its entry-to-exit gain');
    assert.equal(e.committed_at, iso(early.openedAt + 5 * M));
    assert.equal(e.committed_price, null);
    assert.equal(e.ranked_gain, null);
    assert.equal(e.ranked, 'early');
    assert.equal(e.unranked_reason, null);

    // 2. Opened at 110 (the quote in force); pending inside the window, committed at 125 when it ends, closed at 120.
    const held = await open(u);
    const p = await detail(held.id);
    assert.equal(p.entry_price, 110);
    assert.deepEqual(
      {
        committed_at: p.committed_at,
        committed_price: p.committed_price,
        ranked_gain: p.ranked_gain,
        ranked: p.ranked,
        unranked_reason: p.unranked_reason,
      },
      { committed_at: iso(held.openedAt + 5 * M), committed_price: null, ranked_gain: null, ranked: 'pending', unranked_reason: null },
    );
    move(125, 5 * M - 1);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await detail(held.id)).committed_price, null, 'a millisecond before its committed instant: not yet committed');
    t.clock.advance(1);
    const committedRun = await commitDueBets(t.ctx, quiet);
    assert.ok(committedRun.committed >= 1);
    const c = await detail(held.id);
    assert.equal(c.committed_price, 125, 'the first quote published at or after the committed instant');
    assert.equal(c.ranked, 'pending', 'committed, awaiting its exit');
    assert.equal(c.ranked_gain, null);

    // 3. A cancel inside the window.
    const cancelled = await open(u);
    assert.equal((await call('DELETE', `/bet/${cancelled.id}`, u)).statusCode, 200);
    const x = await detail(cancelled.id);
    assert.equal(x.status, 'CANCELLED');
    assert.equal(x.ranked, 'cancelled');
    assert.equal(x.committed_price, null);
    assert.equal(x.ranked_gain, null);

    move(120, 5 * M);
    const heldClose = await close(u, held.id);
    near(heldClose.gain_percent, ((120 - 110) / 110) * 100, 'raw gain from the entry');
    const r = await detail(held.id);
    assert.equal(r.ranked, 'ranked');
    near(r.ranked_gain, -4, 'ranked gain from the committed price: 125 → 120');
    const heldFor = (t.clock.now() - held.openedAt) / S;

    const res = await call('GET', `/user/${u.id}/stats`);
    assert.equal(res.statusCode, 200, res.body);
    const s = res.json();
    // Counts.
    assert.equal(s.opened_trades, 3);
    assert.equal(s.closed_trades, 2);
    assert.equal(s.cancelled_trades, 1);
    assert.equal(s.open_trades, 0);
    assert.equal(s.ranked_trades, 1);
    // Scored: the ranked bet alone (-4).
    assert.equal(s.wins, 0);
    assert.equal(s.win_rate, 0);
    near(s.average_gain, -4, 'average_gain');
    near(s.median_gain, -4, 'median_gain');
    near(s.best_gain, -4, 'best_gain');
    near(s.worst_gain, -4, 'worst_gain');
    near(s.total_gain, -4, 'total_gain');
    near(s.max_drawdown, 4, 'max_drawdown');
    assert.equal(s.curve.length, 1);
    near(s.curve[0].value, -4, 'curve');
    // Raw: every close, percentage_gain (+10 and +9.09…).
    const second = ((120 - 110) / 110) * 100;
    assert.equal(s.raw.closed_trades, 2);
    assert.equal(s.raw.wins, 2);
    assert.equal(s.raw.win_rate, 1);
    near(s.raw.total_gain, 10 + second, 'raw total_gain');
    near(s.raw.average_gain, (10 + second) / 2, 'raw average_gain');
    // Integrity: one of two closes before its committed instant; holding over both closes.
    assert.equal(s.early_closes, 1);
    assert.equal(s.early_close_share, 0.5);
    assert.equal(s.median_holding_seconds, (10 + heldFor) / 2);
    assert.equal(s.cancel_rate, Math.round((1 / 3) * 1e6) / 1e6);
  });

  test('a bet settled inside its window is an early close; an unranked bet says why', async () => {
    const u = await registerAndLogin(t.app);
    const at = t.clock.now();
    const [settledEarly, unranked] = await insertTestBets(t.ctx, [
      { userId: u.id, openedAt: at - 60 * M, end: { status: 'CLOSED', at: at - 57 * M, exit: 103, gain: 3 } },
      { userId: u.id, openedAt: at - 30 * M, end: { status: 'CLOSED', at: at - 10 * M, exit: 105, gain: 5 } },
    ]);
    await t.ctx.db.updateTable('bets').set({ close_reason: 'settlement' }).where('id', '=', settledEarly.id).execute();
    await t.ctx.db.updateTable('bets').set({ unranked_reason: 'entry_not_quoted' }).where('id', '=', unranked.id).execute();

    assert.equal((await detail(settledEarly.id)).ranked, 'early');
    const d = await detail(unranked.id);
    assert.equal(d.ranked, 'unranked');
    assert.equal(d.unranked_reason, 'entry_not_quoted');
    assert.equal(d.ranked_gain, null);

    const s = (await call('GET', `/user/${u.id}/stats`)).json();
    assert.equal(s.closed_trades, 2);
    assert.equal(s.ranked_trades, 0);
    assert.equal(s.early_closes, 1, 'settled inside the window counts as early');
    assert.equal(s.early_close_share, 0.5);
    assert.equal(s.win_rate, null, 'no ranked bet: no scored win rate');
    assert.equal(s.average_gain, null);
    assert.equal(s.total_gain, 0);
    assert.deepEqual(s.curve, []);
    assert.deepEqual(s.raw, { closed_trades: 2, wins: 2, win_rate: 1, average_gain: 4, total_gain: 8 });
    assert.equal(s.median_holding_seconds, (3 * 60 + 20 * 60) / 2);
  });

  test('a trader with no bets: zero counts, null shares', async () => {
    const u = await registerAndLogin(t.app);
    const s = (await call('GET', `/user/${u.id}/stats`)).json();
    assert.equal(s.ranked_trades, 0);
    assert.equal(s.early_closes, 0);
    assert.equal(s.early_close_share, null);
    assert.equal(s.median_holding_seconds, null);
    assert.deepEqual(s.raw, { closed_trades: 0, wins: 0, win_rate: null, average_gain: null, total_gain: 0 });
  });
});
