// GET /instruments/{symbol}/consensus through HTTP on both dialects: raw and
// skill-weighted holders, the minimum of weighted holders, the per-instrument
// cache's bound, the adversary (fresh accounts and closes farmed inside the
// cancel window move nothing weighted), the job that stores and scores each
// close's call, and the directory sorted by consensus.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as m0030 from '../../src/db/migrations/0030_consensus.js';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { periodicJobs } from '../../src/jobs/schedule.js';
import type { ConsensusResponse } from '../../src/schemas/consensus.js';
import type { InstrumentListResponse } from '../../src/schemas/instruments.js';
import { CALL_GRACE_MS, recordConsensusCloses } from '../../src/services/consensus.js';
import { CONSENSUS_TTL_MS } from '../../src/services/shared-answers.js';
import { createTestApp, sessionFor, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { deleteTestUser, insertTestUsers } from '../helpers/users.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
// Wednesday 25 November 2026, 10:00 in New York: NYSE is open.
const OPEN = '2026-11-25T15:00:00Z';
const WED_CLOSE = Date.parse('2026-11-25T21:00:00Z');
// Thursday is Thanksgiving: the next close is Friday's.
const FRI_CLOSE = Date.parse('2026-11-27T21:00:00Z');

forEachDialect('skill-weighted consensus', (dialect) => {
  let t: TestApp;
  let prices: FakePriceProvider;
  before(async () => {
    prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, NVDA: 150, 'BTC-USD': 50_000, SPY: 500 });
    t = await createTestApp(dialect, {
      deps: { prices },
      config: {
        consensusMinHolders: 3,
        capacities: { baseBets: 50, baseFollows: 5 },
        prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 },
      },
    });
    t.clock.set(OPEN);
  });
  after(() => t.close());

  const get = (url: string, cookie?: string) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  /** The consensus as a visitor without a session reads it, past the cache of any earlier answer. */
  const consensus = async (symbol: string): Promise<ConsensusResponse> => {
    t.clock.advance(CONSENSUS_TTL_MS + 1);
    const res = await get(`/instruments/${symbol}/consensus`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const open = async (cookie: string, ticker: string, direction: 'LONG' | 'SHORT'): Promise<number> => {
    const res = await t.app.inject({ method: 'POST', url: '/bet/open', headers: { cookie }, payload: { ticker, direction } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };

  /** Accounts with ranked history: `n` ranked bets of alpha `alpha` each, ten days ago (inside the 90-day window). */
  async function skilled(count: number, n: number, alpha: number): Promise<Array<{ id: number; cookie: string }>> {
    const ids = await insertTestUsers(t.ctx, count, 'skilled');
    const day = new Date(t.clock.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    await t.ctx.db
      .insertInto('user_day_stats')
      .values(
        ids.map((user_id) => ({
          user_id,
          day,
          trades: n,
          score_sum: n * alpha,
          wins: n,
          alpha_count: n,
          alpha_sum: n * alpha,
          alpha_sq_sum: n * alpha * alpha,
          ranked_trades: n,
          ranked_score_sum: n * alpha,
          ranked_wins: n,
          ranked_alpha_count: n,
          ranked_alpha_sum: n * alpha,
          ranked_alpha_sq_sum: n * alpha * alpha,
        })),
      )
      .execute();
    return Promise.all(ids.map(async (id) => ({ id, cookie: await sessionFor(t.ctx, id) })));
  }

  test('a public read: bad symbols 400 and unknown ones 404 in the error shape; nobody holds it: zeros and no call', async () => {
    for (const [url, status] of [
      ['/instruments/a%20b/consensus', 400],
      ['/instruments/ZZZZ/consensus', 404],
    ] as const) {
      const res = await get(url);
      assert.equal(res.statusCode, status, res.body);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    const c = await consensus('nvda');
    assert.equal(c.symbol, 'NVDA');
    assert.equal(c.skill_period, '90d');
    assert.equal(c.min_weighted_holders, 3);
    assert.equal(c.cached_seconds, CONSENSUS_TTL_MS / 1000);
    assert.deepEqual(c.raw, { long: 0, short: 0 });
    assert.deepEqual(c.weighted, { holders: 0, long: null, short: null, long_percent: null, call: 'none' });
    assert.deepEqual(c.record, { calls: 0, hits: 0, hit_rate: null, average_move_percent: null, recent: [] });
  });

  test('raw counts every holder; the weighted figure shows from the minimum of holders with positive skill', async () => {
    // Skill of 4 trades at alpha 10: 10 − 1.645 × 5 / 2 = 5.8875; of 9 at alpha −2: negative, so no weight.
    const w = 10 - (1.645 * 5) / 2;
    const [a, b, c] = await skilled(3, 4, 10);
    const [loser] = await skilled(1, 9, -2);
    await open(a.cookie, 'AAPL', 'SHORT');
    await open(b.cookie, 'AAPL', 'SHORT');
    await open(loser.cookie, 'AAPL', 'LONG');
    let got = await consensus('AAPL');
    assert.deepEqual(got.raw, { long: 1, short: 2 });
    assert.deepEqual(got.weighted, { holders: 2, long: null, short: null, long_percent: null, call: 'none' });
    // Two bets on one side are one holder.
    await open(a.cookie, 'AAPL', 'SHORT');
    await open(c.cookie, 'AAPL', 'LONG');
    got = await consensus('AAPL');
    assert.deepEqual(got.raw, { long: 2, short: 2 });
    assert.equal(got.weighted.holders, 3);
    assert.equal(got.weighted.call, 'short');
    assert.ok(Math.abs((got.weighted.short ?? 0) - 2 * w) < 1e-3);
    assert.ok(Math.abs((got.weighted.long ?? 0) - w) < 1e-3);
    assert.equal(got.weighted.long_percent, 33.33);
    // A deleted account no longer holds anything.
    await deleteTestUser(t.ctx, c.id);
    got = await consensus('AAPL');
    assert.deepEqual(got.raw, { long: 1, short: 2 });
    assert.equal(got.weighted.holders, 2);
    assert.equal(got.weighted.call, 'none');
    // MSFT: three skilled LONG holders, for the directory's sort below.
    for (const s of await skilled(3, 4, 10)) await open(s.cookie, 'MSFT', 'LONG');
    for (const s of await skilled(1, 4, 10)) await open(s.cookie, 'AAPL', 'SHORT');
  });

  test('an answer is shared per instrument for the stated time, never longer', async () => {
    const before = await consensus('NVDA');
    const [s] = await skilled(1, 4, 10);
    await open(s.cookie, 'NVDA', 'LONG');
    t.clock.advance(CONSENSUS_TTL_MS - 1000);
    const cached: ConsensusResponse = (await get('/instruments/NVDA/consensus')).json();
    assert.deepEqual(cached.raw, before.raw);
    assert.equal(cached.as_of, before.as_of);
    t.clock.advance(1001);
    const fresh: ConsensusResponse = (await get('/instruments/NVDA/consensus')).json();
    assert.deepEqual(fresh.raw, { long: 1, short: 0 });
  });

  test('adversary: many fresh accounts, and accounts farming closes inside the cancel window, opening one side move nothing weighted', async () => {
    const baseline = await consensus('AAPL');
    assert.equal(baseline.weighted.call, 'short');
    const fresh = await insertTestUsers(t.ctx, 40, 'sybil');
    for (const id of fresh) await open(await sessionFor(t.ctx, id), 'AAPL', 'LONG');
    // Farmers: many quick round trips each, every one closed at a profit inside the cancel window (never ranked).
    const farmers = await insertTestUsers(t.ctx, 8, 'farmer');
    for (const id of farmers) {
      const cookie = await sessionFor(t.ctx, id);
      for (let i = 0; i < 3; i++) {
        prices.set('AAPL', 100);
        const bet = await open(cookie, 'AAPL', 'LONG');
        t.clock.advance(60_000);
        prices.set('AAPL', 110);
        const res = await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie }, payload: { bet_id: bet } });
        assert.equal(res.statusCode, 200, res.body);
        assert.ok(60_000 < CANCEL_WINDOW_MS);
      }
      await open(cookie, 'AAPL', 'LONG');
    }
    prices.set('AAPL', 100);
    const after = await consensus('AAPL');
    assert.deepEqual(after.raw, { long: baseline.raw.long + 48, short: baseline.raw.short });
    assert.deepEqual(after.weighted, baseline.weighted);
  });

  test("the job stores each close's call once, scores it at the next close, and the record shows how the calls did", async () => {
    assert.ok(periodicJobs(t.ctx, quiet).some((j) => j.name === 'consensus calls'));
    prices.set('AAPL', 100);
    prices.set('MSFT', 400);
    // Just before the close nothing is due (the last close was Tuesday's, long past).
    t.clock.set(WED_CLOSE - 60_000);
    assert.equal(await recordConsensusCloses(t.ctx, quiet), 0);
    t.clock.set(WED_CLOSE + 30_000);
    // AAPL and MSFT are held (NVDA too); BTC-USD and SPY are not, and its 00:00 UTC close is long past anyway.
    assert.equal(await recordConsensusCloses(t.ctx, quiet, undefined, 1), 3, 'the holders read a ticker at a time');
    assert.equal(await recordConsensusCloses(t.ctx, quiet), 0, 'a close is stored once');
    const aapl = await consensus('AAPL');
    assert.equal(aapl.record.calls, 0);
    assert.deepEqual(aapl.record.recent, [
      {
        close_at: new Date(WED_CLOSE).toISOString(),
        call: 'short',
        holders: 3,
        close_price: 100,
        next_close_at: new Date(FRI_CLOSE).toISOString(),
        next_price: null,
        move_percent: null,
      },
    ]);
    // Friday: AAPL fell 5 %, MSFT rose 1 %.
    t.clock.set(FRI_CLOSE - 3_600_000);
    prices.set('AAPL', 95);
    prices.set('MSFT', 404);
    // A close missed by longer than the grace is skipped, never stored with later holders; a late score
    // takes the price at the close, never a later one.
    t.clock.set(FRI_CLOSE + CALL_GRACE_MS);
    prices.set('AAPL', 50);
    assert.equal(await recordConsensusCloses(t.ctx, quiet), 3, 'three scored, no new call');
    const scored = await consensus('AAPL');
    assert.deepEqual(
      { ...scored.record, recent: scored.record.recent.map((r) => [r.call, r.next_price, r.move_percent]) },
      { calls: 1, hits: 1, hit_rate: 100, average_move_percent: 5, recent: [['short', 95, -5]] },
    );
    const msft = await consensus('MSFT');
    assert.deepEqual([msft.record.calls, msft.record.hits, msft.record.hit_rate, msft.record.average_move_percent], [1, 1, 100, 1]);
  });

  test('the directory sorts by the weighted consensus on request, and keeps its order by default', async () => {
    const [viewer] = await insertTestUsers(t.ctx, 1, 'viewer');
    const cookie = await sessionFor(t.ctx, viewer);
    const list = async (url: string): Promise<string[]> => {
      const res = await get(url, cookie);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as InstrumentListResponse).instruments.map((i) => i.symbol);
    };
    t.clock.advance(CONSENSUS_TTL_MS + 1);
    const relevance = await list('/instruments');
    assert.deepEqual(await list('/instruments?sort=relevance'), relevance);
    const sorted = await list('/instruments?sort=consensus');
    // MSFT is weighted all long, AAPL mostly short; the rest have no weighted figure and keep their order.
    assert.deepEqual(sorted, ['MSFT', 'AAPL', ...relevance.filter((s) => s !== 'MSFT' && s !== 'AAPL')]);
    const bad = await get('/instruments?sort=best', cookie);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(Object.keys(bad.json()), ['error']);
  });

  test("limited per address at the public reads' rate (429, declared), and documented as public", async () => {
    const base = t.ctx.config.rateLimits;
    const limited = await createTestApp(dialect, { deps: { prices }, config: { rateLimits: { ...base, enabled: true, publicPerMinute: 2 } } });
    try {
      const from = (ip: string) => limited.app.inject({ method: 'GET', url: '/instruments/AAPL/consensus', remoteAddress: ip });
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await from('10.9.0.1')).statusCode);
      assert.deepEqual(codes, [200, 200, 429]);
      assert.equal((await from('10.9.0.2')).statusCode, 200, 'another address has its own budget');
      const op = (await limited.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths['/instruments/{symbol}/consensus'].get;
      assert.equal(op.operationId, 'getInstrumentConsensus');
      assert.deepEqual(op.security, []);
      assert.ok(op.responses['429'] && op.responses['400'] && op.responses['404']);
    } finally {
      await limited.close();
    }
  });

  test('migration 0030 goes down and up again over stored calls', async () => {
    const db = t.ctx.db as unknown as Parameters<typeof m0030.down>[0];
    await m0030.down(db);
    await m0030.up(db);
    const c = await consensus('AAPL');
    assert.equal(c.record.calls, 0);
    assert.equal(c.weighted.call, 'short');
  });
});
