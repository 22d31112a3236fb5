// Automatic settlement of bets with a target_date, driven by runOnce() and a
// fake clock: NYSE closes across a daylight-saving change and a holiday,
// crypto at midnight UTC, retries after a failed price, no double settlement.
// The rule (docs/rankings.md, "Settlement and close after the due instant"): a
// bet settles at the first quote published at or after its due instant and
// its closed_at is that instant, whenever the pass runs (never the pass's
// time); test/integration/commitments.test.ts runs the pass 10 minutes late.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { type SettlementResult, settlementJob } from '../../src/jobs/settlement.js';
import { findBetById } from '../../src/repositories/bets.js';
import type { BetEvent } from '../../src/services/events.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

forEachDialect('automatic settlement', (dialect) => {
  let t: TestApp;
  let worker: PeriodicJob<SettlementResult>;
  const prices = new FakePriceProvider();
  const events: BetEvent[] = [];
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
    worker = new PeriodicJob(settlementJob(t.ctx, quiet));
    t.ctx.events.inTransaction('betChanged', async (_trx, e) => {
      events.push(e);
    });
  });
  after(() => t.close());

  async function openAt(user: TestUser, when: string, body: Record<string, unknown>): Promise<number> {
    t.clock.set(when);
    const res = await t.app.inject({ method: 'POST', url: '/bet/open', payload: body, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  /** Sessions are checked against the fake clock: log in at the time the test starts. */
  async function userAt(when: string): Promise<TestUser> {
    t.clock.set(when);
    return registerAndLogin(t.app);
  }
  const status = async (id: number) => (await findBetById(t.ctx.db, id))?.status;
  async function runAt(when: string) {
    t.clock.set(when);
    return worker.runOnce();
  }

  test('a stock bet settles at 16:00 New York on its target date, at the first quote at or after it, onto the leaderboard', async () => {
    const u = await userAt('2026-03-02T15:00:00Z');
    const id = await openAt(u, '2026-03-02T15:00:00Z', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-03-06' });
    await runAt('2026-03-06T20:59:59Z');
    assert.equal(await status(id), 'OPEN', 'one second before the 16:00 EST close');
    prices.set('AAPL', 120);
    try {
      const r = await runAt('2026-03-06T21:00:00Z');
      assert.ok(r.settled >= 1);
    } finally {
      prices.set('AAPL', 100);
    }
    const bet = await findBetById(t.ctx.db, id);
    assert.equal(bet?.status, 'CLOSED');
    assert.equal(bet?.close_reason, 'settlement');
    assert.equal(bet?.exit_price, 120);
    assert.equal(bet?.percentage_gain, 20);
    assert.equal(bet?.closed_at, Date.parse('2026-03-06T21:00:00Z'));
    assert.equal(events.find((e) => e.bet.id === id && e.kind === 'settled')?.bet.status, 'CLOSED');
    const board = (await t.app.inject({ method: 'GET', url: '/leaderboard' })).json() as Array<{ id: number; total_score: number }>;
    assert.equal(board.find((r) => r.id === u.id)?.total_score, 20);
  });

  test('across the daylight-saving change: a Saturday target settles Monday at 16:00 EDT (20:00 UTC)', async () => {
    const u = await userAt('2026-03-05T15:00:00Z');
    const id = await openAt(u, '2026-03-05T15:00:00Z', { ticker: 'SPY', direction: 'SHORT', target_date: '2026-03-07' });
    await runAt('2026-03-08T12:00:00Z');
    assert.equal(await status(id), 'OPEN', 'Sunday: no close');
    await runAt('2026-03-09T19:59:59Z');
    assert.equal(await status(id), 'OPEN');
    await runAt('2026-03-09T20:00:00Z');
    assert.equal(await status(id), 'CLOSED');
  });

  test('over a holiday: a Good Friday target settles the Monday after', async () => {
    const u = await userAt('2026-03-30T15:00:00Z');
    const id = await openAt(u, '2026-03-30T15:00:00Z', { ticker: 'MSFT', direction: 'LONG', target_date: '2026-04-03' });
    await runAt('2026-04-03T21:00:00Z');
    assert.equal(await status(id), 'OPEN', 'Good Friday: NYSE closed');
    await runAt('2026-04-06T19:59:59Z');
    assert.equal(await status(id), 'OPEN');
    await runAt('2026-04-06T20:00:00Z');
    assert.equal(await status(id), 'CLOSED');
  });

  test('crypto settles at 00:00 UTC after its target date, holidays or not', async () => {
    const u = await userAt('2026-04-01T10:00:00Z');
    const id = await openAt(u, '2026-04-01T10:00:00Z', { ticker: 'btc-usd', direction: 'LONG', target_date: '2026-04-03' });
    await runAt('2026-04-03T23:59:59Z');
    assert.equal(await status(id), 'OPEN');
    await runAt('2026-04-04T00:00:00Z');
    assert.equal(await status(id), 'CLOSED');
  });

  test('a same-day target opened after the close settles on the next run', async () => {
    const u = await userAt('2026-05-04T22:00:00Z');
    const id = await openAt(u, '2026-05-04T22:00:00Z', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-05-04' });
    await runAt('2026-05-04T22:01:00Z');
    assert.equal(await status(id), 'CLOSED');
    // Its target's close (21:00) came before it opened: it is due at its opening, not at the pass (22:01).
    assert.equal((await findBetById(t.ctx.db, id))?.closed_at, Date.parse('2026-05-04T22:00:00Z'));
  });

  test('a failed price fetch leaves the bet OPEN until a later run succeeds', async () => {
    const u = await userAt('2026-06-01T15:00:00Z');
    prices.set('QQQ', 500);
    const id = await openAt(u, '2026-06-01T15:00:00Z', { ticker: 'QQQ', direction: 'LONG', target_date: '2026-06-02' });
    prices.failing.add('QQQ');
    try {
      const r = await runAt('2026-06-02T20:30:00Z');
      assert.ok(r.deferred >= 1);
      assert.equal(await status(id), 'OPEN');
    } finally {
      prices.failing.delete('QQQ');
    }
    prices.set('QQQ', 510);
    await runAt('2026-06-02T20:31:00Z');
    const settled = await findBetById(t.ctx.db, id);
    assert.equal(settled?.status, 'CLOSED');
    // Dated at its due instant (16:00 EDT), not at the pass that could fetch the price; at the first quote published since.
    assert.equal(settled?.closed_at, Date.parse('2026-06-02T20:00:00Z'));
    assert.equal(settled?.exit_price, 510);
    prices.set('QQQ', 500);
  });

  test('bets without a target date, or already closed or cancelled, are left alone', async () => {
    const u = await userAt('2026-07-06T15:00:00Z');
    const plain = await openAt(u, '2026-07-06T15:00:00Z', { ticker: 'AAPL', direction: 'LONG' });
    const closed = await openAt(u, '2026-07-06T15:00:00Z', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-07-07' });
    const cancelled = await openAt(u, '2026-07-06T15:00:00Z', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-07-07' });
    await t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: closed }, headers: { cookie: u.cookie } });
    await t.app.inject({ method: 'DELETE', url: `/bet/${cancelled}`, headers: { cookie: u.cookie } });
    await runAt('2027-01-04T21:00:00Z');
    assert.equal(await status(plain), 'OPEN');
    const c = await findBetById(t.ctx.db, closed);
    assert.equal(c?.close_reason, 'user');
    assert.equal(await status(cancelled), 'CANCELLED');
  });

  test('two workers at once (two instances) settle each bet exactly once', async () => {
    const u = await userAt('2026-08-03T15:00:00Z');
    const ids: number[] = [];
    for (let i = 0; i < 12; i++)
      ids.push(await openAt(u, '2026-08-03T15:00:00Z', { ticker: i % 2 ? 'AAPL' : 'MSFT', direction: 'LONG', target_date: '2026-08-04' }));
    t.clock.set('2026-08-04T20:00:00Z');
    const other = new PeriodicJob(settlementJob(t.ctx, quiet));
    const [a, b] = await Promise.all([worker.runOnce(), other.runOnce()]);
    assert.equal(a.settled + b.settled, 12);
    for (const id of ids) assert.equal(await status(id), 'CLOSED');
    assert.equal(events.filter((e) => ids.includes(e.bet.id) && e.kind === 'settled').length, 12);
    const board = (await t.app.inject({ method: 'GET', url: '/leaderboard' })).json() as Array<{ id: number; total_trades: number }>;
    assert.equal(board.find((r) => r.id === u.id)?.total_trades, 12);
  });

  test('buildApp runs the worker at start when workers are enabled, and stops it on close', async () => {
    const u = await userAt('2026-09-01T15:00:00Z');
    const id = await openAt(u, '2026-09-01T15:00:00Z', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-09-01' });
    t.clock.set('2026-09-01T20:00:00Z');
    const app = await buildApp(testConfig({ workers: { enabled: true, settlementIntervalMs: 60_000 } }), {
      logger: false,
      database: t.database,
      clock: t.clock,
      prices,
    });
    await app.close(); // waits for the pass that started with the app
    assert.equal(await status(id), 'CLOSED');
  });
});
