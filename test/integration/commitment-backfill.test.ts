// Issue 33 item 7, existing data: migration 0026 flags the bets that existed
// before quotes were published, and the commitment backfill job decides them:
// generated bets (entry price never a quote of the market) marked
// 'entry_not_quoted', real ones committed at the provider's price at their
// committed instant (ranked gain for those finished after it), those finished
// inside their window unflagged; a bet whose price cannot be had waits; the job
// resumes after an interruption from the flags alone; then the aggregates are
// recounted once and equal a recount from the bets.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Kysely } from 'kysely';
import * as m0026 from '../../src/db/migrations/0026_commitment_backfill.js';
import { percentageGain } from '../../src/domain/bets.js';
import { utcDate } from '../../src/domain/market-calendar.js';
import { alphaOf } from '../../src/domain/rankings.js';
import { BACKFILL_JOB, BACKFILL_PENDING, backfillCommitments, ENTRY_NOT_QUOTED } from '../../src/jobs/commitment-backfill.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { periodicJobs } from '../../src/jobs/schedule.js';
import { findBetById } from '../../src/repositories/bets.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { insertTestBets } from '../helpers/bet-rows.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const S = 1000;
const MIN = 60 * S;

forEachDialect('commitment backfill of existing data', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, 'BTC-USD': 50_000, SPY: 500 });
  before(async () => {
    // Starts before the prices below are set, so the provider's timeline dates them.
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
  });
  after(() => t.close());

  async function openAt(user: TestUser, when: number, body: Record<string, unknown>): Promise<number> {
    t.clock.set(when);
    const res = await t.app.inject({ method: 'POST', url: '/bet/open', payload: body, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  async function closeAt(user: TestUser, when: number, id: number): Promise<void> {
    t.clock.set(when);
    const res = await t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: id }, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
  }
  async function setAt(when: number, ticker: string, price: number): Promise<void> {
    t.clock.set(when);
    prices.set(ticker, price);
  }
  const bet = async (id: number) => (await findBetById(t.ctx.db, id))!;

  test('generated bets marked, real ones committed at the price of their instant, resumable, aggregates recounted once', async () => {
    // Existing data, made before quotes were logged (the quotes are dropped below), months before the deployment.
    const t0 = Date.parse('2026-06-01T15:00:00Z');
    t.clock.set(t0 - MIN);
    const u = await registerAndLogin(t.app);
    const gen = await registerAndLogin(t.app);
    await setAt(t0, 'AAPL', 100);
    await setAt(t0, 'SPY', 500);
    await setAt(t0, 'MSFT', 400);
    const open = await openAt(u, t0 + 2 * S, { ticker: 'AAPL', direction: 'LONG' });
    const closedAfter = await openAt(u, t0 + 2 * S, { ticker: 'AAPL', direction: 'SHORT' });
    const closedInside = await openAt(u, t0 + 2 * S, { ticker: 'AAPL', direction: 'LONG' });
    const failing = await openAt(u, t0 + 2 * S, { ticker: 'MSFT', direction: 'LONG' });
    // Opened 3 s after the price moved: its entry is the quote published 3 s before, still in force.
    await setAt(t0 + MIN, 'AAPL', 102);
    t.clock.set(t0 + MIN + 1);
    await t.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: u.cookie } });
    await setAt(t0 + MIN + 2 * S, 'AAPL', 104);
    const cachedEntry = await openAt(u, t0 + MIN + 3 * S, { ticker: 'AAPL', direction: 'LONG' });
    await setAt(t0 + 3 * MIN, 'AAPL', 110);
    await setAt(t0 + 3 * MIN, 'SPY', 505);
    await closeAt(u, t0 + 4 * MIN, closedInside);
    await setAt(t0 + 8 * MIN, 'AAPL', 120);
    await setAt(t0 + 8 * MIN, 'MSFT', 420);
    await closeAt(u, t0 + 20 * MIN, closedAfter);
    // Generated data: entry prices that were never the market's quote at the opening.
    const [made, stale, madeClosed] = await insertTestBets(t.ctx, [
      { userId: gen.id, ticker: 'AAPL', entry: 123.45, openedAt: t0 + 10 * MIN },
      // 100 was AAPL's price, but not in the seconds before this opening (120 since t0 + 8 min).
      { userId: gen.id, ticker: 'AAPL', entry: 100, openedAt: t0 + 30 * MIN },
      { userId: gen.id, ticker: 'AAPL', entry: 99, openedAt: t0 + 11 * MIN, end: { status: 'CLOSED', at: t0 + 40 * MIN, exit: 120, gain: 21.2 } },
    ]);
    // As the code before quotes left them: no quote logged, no commitment recorded.
    await t.ctx.db.deleteFrom('quotes').execute();
    await t.ctx.db.updateTable('bets').set({ committed_price: null, benchmark_committed: null, ranked_gain: null }).execute();
    // Aggregates left wrong by earlier code or by hand: the recount must mend them.
    await t.ctx.db.updateTable('leaderboard').set({ total_score: 999 }).where('user_id', '=', u.id).execute();

    // The deployment: migration 0026 flags what existed (run again here, onto this data).
    const db = t.ctx.db as unknown as Kysely<unknown>;
    await m0026.down(db);
    await m0026.up(db);
    const ids = { open, closedAfter, closedInside, failing, cachedEntry, made: made.id, stale: stale.id, madeClosed: madeClosed.id };
    for (const [name, id] of Object.entries(ids)) assert.equal((await bet(id)).unranked_reason, BACKFILL_PENDING, `${name} flagged`);

    // The commitments job leaves flagged bets alone: no commit at today's quote standing in.
    t.clock.set(t0 + 60 * MIN);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await bet(open)).committed_price, null);

    // An interrupted run: two bets, then a restart (a new cursor); MSFT's provider is down meanwhile.
    prices.failing.add('MSFT');
    const first = await backfillCommitments(t.ctx, quiet, { afterId: 0 }, 2);
    assert.equal(first.seen, 2);
    const flagged = async () =>
      (await t.ctx.db.selectFrom('bets').select('id').where('unranked_reason', '=', BACKFILL_PENDING).execute()).map((r) => r.id);
    assert.equal((await flagged()).length, Object.keys(ids).length - 2, 'the flags are the progress');
    let pass = await backfillCommitments(t.ctx, quiet, { afterId: 0 });
    assert.ok(pass.deferred >= 1);
    assert.equal(pass.done, false, 'a bet whose price cannot be had holds the recount');
    assert.deepEqual(await flagged(), [failing]);
    prices.failing.delete('MSFT');
    pass = await backfillCommitments(t.ctx, quiet, { afterId: 0 });
    assert.equal(pass.committed, 1);
    assert.equal(pass.recounted, true);
    assert.equal(pass.done, true);
    const again = await backfillCommitments(t.ctx, quiet, { afterId: 0 });
    assert.equal(again.recounted, false, 'recounted once');
    assert.equal(again.done, true);
    const state = await t.ctx.db.selectFrom('data_jobs').selectAll().where('name', '=', BACKFILL_JOB).executeTakeFirstOrThrow();
    assert.equal(Number(state.processed), Object.keys(ids).length);
    assert.notEqual(state.done_at, null);

    // Real bets: committed at the provider's price at opened_at + 5 min, the benchmark beside it.
    let b = await bet(open);
    assert.equal(b.unranked_reason, null);
    assert.equal(b.committed_price, 110);
    assert.equal(b.benchmark_committed, 505);
    assert.equal(b.ranked_gain, null, 'still open');
    b = await bet(closedAfter);
    assert.equal(b.committed_price, 110);
    assert.equal(b.ranked_gain, percentageGain('SHORT', 110, 120));
    b = await bet(cachedEntry);
    assert.equal(b.entry_price, 102);
    assert.equal(b.committed_price, 110, 'committed at t0 + 6 min 3 s');
    b = await bet(failing);
    assert.equal(b.committed_price, 400);
    b = await bet(closedInside);
    assert.equal(b.unranked_reason, null);
    assert.equal(b.committed_price, null);
    assert.equal(b.ranked_gain, null, 'closed inside its window: never ranked');
    // Generated bets: marked, never committed, never ranked.
    for (const id of [made.id, stale.id, madeClosed.id]) {
      b = await bet(id);
      assert.equal(b.unranked_reason, ENTRY_NOT_QUOTED);
      assert.equal(b.committed_price, null);
      assert.equal(b.ranked_gain, null);
    }
    // And the commitments job does not touch them afterwards either.
    t.clock.set(t0 + 61 * MIN);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await bet(made.id)).committed_price, null);

    // The aggregates equal a recount from the bets.
    const closed = await t.ctx.db
      .selectFrom('bets')
      .innerJoin('users', 'users.id', 'bets.user_id')
      .select([
        'bets.user_id',
        'bets.direction',
        'bets.percentage_gain',
        'bets.closed_at',
        'bets.benchmark_entry',
        'bets.benchmark_exit',
        'users.deleted_at',
      ])
      .where('bets.status', '=', 'CLOSED')
      .execute();
    const board = new Map<number, { score: number; trades: number }>();
    const days = new Map<string, { trades: number; score: number; wins: number; alphas: number; alphaSum: number }>();
    for (const r of closed) {
      const gain = Number(r.percentage_gain);
      if (r.deleted_at === null) {
        const row = board.get(r.user_id) ?? { score: 0, trades: 0 };
        row.score += gain;
        row.trades++;
        board.set(r.user_id, row);
      }
      const key = `${r.user_id}|${utcDate(Number(r.closed_at))}`;
      const d = days.get(key) ?? { trades: 0, score: 0, wins: 0, alphas: 0, alphaSum: 0 };
      d.trades++;
      d.score += gain;
      if (gain > 0) d.wins++;
      const alpha = alphaOf(
        r.direction,
        gain,
        r.benchmark_entry === null ? null : Number(r.benchmark_entry),
        r.benchmark_exit === null ? null : Number(r.benchmark_exit),
      );
      if (alpha !== null) {
        d.alphas++;
        d.alphaSum += alpha;
      }
      days.set(key, d);
    }
    const leaderboard = await t.ctx.db.selectFrom('leaderboard').selectAll().execute();
    assert.equal(leaderboard.length, board.size);
    for (const row of leaderboard) {
      const want = board.get(Number(row.user_id))!;
      assert.ok(Math.abs(Number(row.total_score) - want.score) < 1e-9, `leaderboard score of ${row.user_id}`);
      assert.equal(Number(row.total_trades), want.trades);
    }
    assert.ok(board.has(u.id) && board.get(u.id)!.score !== 999);
    const dayRows = await t.ctx.db.selectFrom('user_day_stats').selectAll().execute();
    assert.equal(dayRows.length, days.size);
    for (const row of dayRows) {
      const want = days.get(`${row.user_id}|${row.day}`)!;
      assert.ok(want, `day row ${row.user_id} ${row.day}`);
      assert.equal(Number(row.trades), want.trades);
      assert.ok(Math.abs(Number(row.score_sum) - want.score) < 1e-9);
      assert.equal(Number(row.wins), want.wins);
      assert.equal(Number(row.alpha_count), want.alphas);
      assert.ok(Math.abs(Number(row.alpha_sum) - want.alphaSum) < 1e-9);
    }
  });

  test('it runs by itself: a periodic job of every instance, idle once done', async () => {
    const job = periodicJobs(t.ctx, quiet).find((j) => j.name === 'commitment backfill');
    assert.ok(job, 'in src/jobs/schedule.ts');
    const r = (await job.run(new AbortController().signal)) as { done: boolean; seen: number };
    assert.equal(r.done, true);
    assert.equal(r.seen, 0);
  });
});
