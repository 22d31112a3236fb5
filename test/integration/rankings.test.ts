// Leaderboard windows and the skill ranking through HTTP: alpha against a
// benchmark path the test sets, windows at their day boundaries, min_trades,
// the 5-point floor, the caller's own rank, cancelled bets and deleted users.
// The rankings count ranked bets only (docs/rankings.md): trades here are held
// past their cancel window and committed by the job before prices move.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { FakeClock } from '../../src/lib/clock.js';
import { findBetById } from '../../src/repositories/bets.js';
import { createTestApp, registerAndLogin, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { insertTestUser } from '../helpers/users.js';

const MIN = 60_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Ranked {
  id: number;
  username: string;
  rank: number;
  n: number;
  mean_alpha: number;
  skill: number;
  total_score: number;
}
interface Rankings {
  period: string;
  min_trades: number;
  rows: Ranked[];
  me: Ranked | null;
}
interface BoardRow {
  id: number;
  username: string;
  total_score: number;
  total_trades: number;
}

const near = (a: number | undefined, b: number, what = '') => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≈ ${b}`);

interface Trade {
  ticker?: string;
  direction?: 'LONG' | 'SHORT';
  entry?: number;
  exit: number;
  /** The benchmark's price at open (and at the committed instant) and at close. */
  bench?: [number, number];
  /** Held this long in all (past the cancel window: a ranked bet). */
  holdMs?: number;
}

/** One app with a controllable price path; open, hold, close through HTTP. */
async function tradingApp(dialect: 'sqlite' | 'postgres', clock?: FakeClock) {
  const prices = new FakePriceProvider({ AAPL: 100, 'ETH-USD': 2000, 'BTC-USD': 50_000, SPY: 500 });
  const t = await createTestApp(dialect, {
    clock,
    deps: { prices },
    config: {
      capacities: { baseBets: 50, baseFollows: 5 },
      prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 },
    },
  });
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: object) =>
    t.app.inject({ method, url, payload, headers: user ? { cookie: user.cookie } : {} });
  const open = async (u: TestUser, ticker: string, direction: 'LONG' | 'SHORT', extra: object = {}) => {
    const res = await call('POST', '/bet/open', u, { ticker, direction, ...extra });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };
  async function trade(u: TestUser, tr: Trade): Promise<number> {
    const ticker = tr.ticker ?? 'AAPL';
    const bench = ticker.endsWith('-USD') ? 'BTC-USD' : 'SPY';
    prices.set(ticker, tr.entry ?? 100);
    if (tr.bench) prices.set(bench, tr.bench[0]);
    const id = await open(u, ticker, tr.direction ?? 'LONG');
    // Committed at the end of its window at the entry prices: its ranked gain and alpha equal the raw ones.
    const hold = tr.holdMs ?? CANCEL_WINDOW_MS + MIN;
    t.clock.advance(Math.min(hold, CANCEL_WINDOW_MS + 1));
    await commitDueBets(t.ctx, quiet);
    t.clock.advance(hold - Math.min(hold, CANCEL_WINDOW_MS + 1));
    prices.set(ticker, tr.exit);
    if (tr.bench) prices.set(bench, tr.bench[1]);
    const res = await call('POST', '/bet/close', u, { bet_id: id });
    assert.equal(res.statusCode, 200, res.body);
    return id;
  }
  const board = async (query = '') => {
    const res = await call('GET', `/leaderboard${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as BoardRow[];
  };
  const ranking = async (query = '', user?: TestUser) => {
    const res = await call('GET', `/rankings${query}`, user);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Rankings;
  };
  return { t, prices, call, open, trade, board, ranking };
}

forEachDialect('rankings and leaderboard windows', (dialect) => {
  describe('alpha, skill and the caller', () => {
    let a: Awaited<ReturnType<typeof tradingApp>>;
    before(async () => {
      a = await tradingApp(dialect);
    });
    after(() => a.t.close());

    test('alpha: gain minus the same direction on SPY (stocks) or BTC-USD (crypto) over the holding period', async () => {
      const u = await registerAndLogin(a.t.app, 'alpha');
      // LONG AAPL +10 % while SPY rose 4 %: alpha 6.
      const long = await a.trade(u, { entry: 100, exit: 110, bench: [500, 520] });
      // SHORT ETH-USD +10 % while BTC-USD fell 10 %: the market did it all, alpha 0.
      const short = await a.trade(u, { ticker: 'ETH-USD', direction: 'SHORT', entry: 2000, exit: 1800, bench: [50_000, 45_000] });
      const row = await findBetById(a.t.ctx.db, long);
      assert.equal(row?.benchmark_entry, 500);
      assert.equal(row?.benchmark_exit, 520);
      const crypto = await findBetById(a.t.ctx.db, short);
      assert.deepEqual([crypto?.benchmark_entry, crypto?.benchmark_exit], [50_000, 45_000]);

      const mine = (await a.ranking('?period=all')).rows.find((r) => r.id === u.id);
      assert.ok(mine, 'ranked');
      assert.equal(mine.n, 2);
      near(mine.mean_alpha, 3, 'mean of 6 and 0');
      near(mine.skill, 3 - (1.645 * 5) / Math.sqrt(2), 'floored s');
      near(mine.total_score, 20, 'gains 10 + 10');
      assert.deepEqual(Object.keys(mine).sort(), ['id', 'mean_alpha', 'n', 'rank', 'skill', 'total_score', 'username']);
    });

    test('a benchmark failure at the committed instant or at close leaves that bet without ranked alpha; one at open does not; the bet itself goes through', async () => {
      const failing = async <T>(fn: () => Promise<T>): Promise<T> => {
        a.prices.failing.add('SPY');
        try {
          return await fn();
        } finally {
          a.prices.failing.delete('SPY');
        }
      };
      const u = await registerAndLogin(a.t.app, 'nobench');
      a.prices.set('SPY', 500);
      a.prices.set('AAPL', 100);
      // The benchmark cannot be had when the cancel window ends: no committed benchmark price.
      const atCommit = await a.open(u, 'AAPL', 'LONG');
      a.t.clock.advance(CANCEL_WINDOW_MS + 1);
      await failing(() => commitDueBets(a.t.ctx, quiet));
      a.t.clock.advance(MIN);
      a.prices.set('AAPL', 120);
      assert.equal((await a.call('POST', '/bet/close', u, { bet_id: atCommit })).statusCode, 200);
      // Nor at close: no exit benchmark price.
      a.prices.set('AAPL', 100);
      const atClose = await a.open(u, 'AAPL', 'LONG');
      a.t.clock.advance(CANCEL_WINDOW_MS + 1);
      await commitDueBets(a.t.ctx, quiet);
      a.t.clock.advance(MIN);
      await failing(async () => assert.equal((await a.call('POST', '/bet/close', u, { bet_id: atClose })).statusCode, 200));
      const [x, y] = [await findBetById(a.t.ctx.db, atCommit), await findBetById(a.t.ctx.db, atClose)];
      assert.deepEqual([x?.benchmark_entry, x?.benchmark_committed, x?.benchmark_exit], [500, null, 500]);
      assert.deepEqual([y?.benchmark_entry, y?.benchmark_committed, y?.benchmark_exit], [500, 500, null]);
      // Both count as trades and score, raw and ranked; neither has ranked alpha, so the user is not in the rankings.
      assert.deepEqual(
        (await a.board('?period=7d')).find((r) => r.id === u.id),
        { id: u.id, username: u.username, total_score: 20, total_trades: 2 },
      );
      const ranked = await a.call('GET', '/leaderboard/ranked?period=7d');
      assert.deepEqual(
        (ranked.json() as BoardRow[]).find((r) => r.id === u.id),
        { id: u.id, username: u.username, total_score: 20, total_trades: 2 },
      );
      assert.equal(
        (await a.ranking('?period=7d')).rows.find((r) => r.id === u.id),
        undefined,
      );

      // A failure at open takes the raw alpha only: ranked alpha runs from the committed benchmark price.
      const v = await registerAndLogin(a.t.app, 'openfail');
      a.prices.set('AAPL', 100);
      const atOpen = await failing(() => a.open(v, 'AAPL', 'LONG'));
      a.t.clock.advance(CANCEL_WINDOW_MS + 1);
      await commitDueBets(a.t.ctx, quiet);
      a.t.clock.advance(MIN);
      a.prices.set('AAPL', 110);
      assert.equal((await a.call('POST', '/bet/close', v, { bet_id: atOpen })).statusCode, 200);
      const z = await findBetById(a.t.ctx.db, atOpen);
      assert.deepEqual([z?.benchmark_entry, z?.benchmark_committed, z?.benchmark_exit], [null, 500, 500]);
      const row = (await a.ranking('?period=7d')).rows.find((r) => r.id === v.id);
      assert.equal(row?.n, 1);
      near(row?.mean_alpha, 10, 'ranked alpha: +10 % against a flat SPY');
    });

    test('settlement records the benchmark at its close too', async () => {
      const u = await registerAndLogin(a.t.app, 'settle');
      a.prices.set('SPY', 500);
      a.prices.set('AAPL', 100);
      const id = await a.open(u, 'AAPL', 'LONG', { target_date: '2026-03-02' });
      // Committed at the end of its window at the entry prices (ranked alpha runs from there).
      a.t.clock.advance(CANCEL_WINDOW_MS + 1);
      await commitDueBets(a.t.ctx, quiet);
      a.prices.set('AAPL', 105);
      a.prices.set('SPY', 510);
      a.t.clock.set('2026-03-02T21:00:00Z');
      try {
        const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
        assert.ok((await new PeriodicJob(settlementJob(a.t.ctx, quiet)).runOnce()).settled >= 1);
      } finally {
        a.prices.set('AAPL', 100);
        a.prices.set('SPY', 500);
      }
      const bet = await findBetById(a.t.ctx.db, id);
      assert.deepEqual([bet?.status, bet?.benchmark_entry, bet?.benchmark_committed, bet?.benchmark_exit], ['CLOSED', 500, 500, 510]);
      near(bet?.ranked_gain ?? undefined, 5, 'settled past its window: ranked');
      const mine = (await a.ranking('?period=all')).rows.find((r) => r.id === u.id);
      near(mine?.mean_alpha, 3, '+5 % against SPY +2 %');
    });

    test('the floor: one lucky trade ranks below a steady trader with a smaller average', async () => {
      const lucky = await registerAndLogin(a.t.app, 'lucky');
      const steady = await registerAndLogin(a.t.app, 'steady');
      await a.trade(lucky, { exit: 115, bench: [500, 500] }); // alpha 15: skill 15 − 1.645 × 5 = 6.775
      for (let i = 0; i < 9; i++) await a.trade(steady, { exit: 110, bench: [500, 500] }); // alpha 10 each: 10 − 1.645 × 5 / 3 ≈ 7.26
      const { rows } = await a.ranking();
      const [l, s] = [rows.find((r) => r.id === lucky.id), rows.find((r) => r.id === steady.id)];
      assert.ok(l && s);
      near(l.skill, 15 - 1.645 * 5, 'lucky');
      near(s.skill, 10 - (1.645 * 5) / 3, 'steady');
      assert.ok(l.mean_alpha > s.mean_alpha);
      assert.ok(s.rank < l.rank, `steady ${s.rank} above lucky ${l.rank}`);
      // The whole answer is in order: skill, then n, then id; ranks count from 1.
      for (const [i, r] of rows.entries()) assert.equal(r.rank, i + 1);
      for (let i = 1; i < rows.length; i++) {
        const [p, q] = [rows[i - 1], rows[i]];
        assert.ok(p.skill > q.skill || (p.skill === q.skill && (p.n > q.n || (p.n === q.n && p.id < q.id))), `order at ${i}`);
      }
      // min_trades counts bets with alpha: at 5 the lucky trader is gone, the steady one stays.
      const five = await a.ranking('?min_trades=5');
      assert.equal(five.min_trades, 5);
      assert.equal(five.period, '90d');
      assert.ok(five.rows.some((r) => r.id === steady.id));
      assert.ok(!five.rows.some((r) => r.id === lucky.id));
    });

    test('cancelled bets never count: no leaderboard row, no day aggregate, no ranking', async () => {
      const u = await registerAndLogin(a.t.app, 'cancel');
      const id = await a.open(u, 'AAPL', 'LONG');
      assert.equal((await a.call('DELETE', `/bet/${id}`, u)).statusCode, 200);
      for (const q of ['', '?period=7d', '?period=all']) {
        assert.equal(
          (await a.board(q)).find((r) => r.id === u.id),
          undefined,
          q,
        );
        const ranked = (await a.call('GET', `/leaderboard/ranked${q}`)).json() as BoardRow[];
        assert.equal(
          ranked.find((r) => r.id === u.id),
          undefined,
          `ranked ${q}`,
        );
      }
      assert.equal(
        (await a.ranking('?period=all')).rows.find((r) => r.id === u.id),
        undefined,
      );
      const agg = await a.t.ctx.db.selectFrom('user_day_stats').selectAll().where('user_id', '=', u.id).execute();
      assert.deepEqual(agg, []);
    });

    test("SPEC's leaderboard is unchanged without parameters; unknown and bad parameters are 400", async () => {
      const plain = await a.board();
      assert.ok(plain.length > 0 && plain.length <= 100);
      for (const r of plain) assert.deepEqual(Object.keys(r).sort(), ['id', 'total_score', 'total_trades', 'username']);
      const table = await a.t.ctx.db.selectFrom('leaderboard').selectAll().execute();
      for (const r of plain) {
        const agg = table.find((x) => Number(x.user_id) === r.id);
        assert.deepEqual([r.total_score, r.total_trades], [agg?.total_score, agg?.total_trades]);
      }
      // Every bet here closed today: the all-time window from day aggregates agrees with SPEC's aggregate.
      assert.deepEqual(await a.board('?period=all'), plain);
      // Issue 22: unknown query parameters are refused on every API route, this one included.
      for (const bad of [
        '?_=123',
        '?period=5d',
        '?period=',
        '?min_trades=0',
        '?min_trades=1.5',
        '?min_trades=x',
        '?period=all&min_trades=-1',
        '?min_trades=0x1',
      ]) {
        const res = await a.call('GET', `/leaderboard${bad}`);
        assert.equal(res.statusCode, 400, bad);
        assert.deepEqual(Object.keys(res.json()), ['error']);
      }
      for (const bad of ['?period=1y', '?min_trades=0', '?other=1']) {
        const res = await a.call('GET', `/rankings${bad}`);
        assert.equal(res.statusCode, 400, bad);
        assert.deepEqual(Object.keys(res.json()), ['error']);
      }
    });

    test('deleted accounts leave windows and rankings', async () => {
      const u = await registerAndLogin(a.t.app, 'gone');
      await a.trade(u, { exit: 150, bench: [500, 500] });
      const rankedBoard = async (q: string) => (await a.call('GET', `/leaderboard/ranked${q}`)).json() as BoardRow[];
      assert.ok((await a.board('?period=7d')).some((r) => r.id === u.id));
      assert.ok((await rankedBoard('')).some((r) => r.id === u.id));
      assert.ok((await rankedBoard('?period=7d')).some((r) => r.id === u.id));
      assert.ok((await a.ranking()).rows.some((r) => r.id === u.id));
      const gone = await a.t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: u.cookie }, payload: { password: u.password } });
      assert.equal(gone.statusCode, 200, gone.body);
      assert.ok(!(await a.board('?period=7d')).some((r) => r.id === u.id));
      assert.ok(!(await rankedBoard('')).some((r) => r.id === u.id));
      assert.ok(!(await rankedBoard('?period=7d')).some((r) => r.id === u.id));
      assert.ok(!(await a.ranking()).rows.some((r) => r.id === u.id));
    });

    // Last in this app: it fills the top 100 with stronger traders.
    test('the caller sees their own row and rank below the top rows; not inside them, not without a session', async () => {
      const today = new Date(a.t.clock.now()).toISOString().slice(0, 10);
      for (let i = 0; i < 105; i++) {
        const id = await insertTestUser(a.t.ctx, `strong_${i}_${dialect}`);
        // Ten ranked trades of 20 points' alpha each: skill ≈ 17.4.
        await a.t.ctx.db
          .insertInto('user_day_stats')
          .values({
            user_id: id,
            day: today,
            trades: 10,
            score_sum: 200,
            wins: 10,
            alpha_count: 10,
            alpha_sum: 200,
            alpha_sq_sum: 4000,
            ranked_trades: 10,
            ranked_score_sum: 200,
            ranked_wins: 10,
            ranked_alpha_count: 10,
            ranked_alpha_sum: 200,
            ranked_alpha_sq_sum: 4000,
          })
          .execute();
      }
      const weak = await registerAndLogin(a.t.app, 'weak');
      await a.trade(weak, { exit: 101, bench: [500, 500] });
      const star = await registerAndLogin(a.t.app, 'star');
      for (let i = 0; i < 4; i++) await a.trade(star, { exit: 300, bench: [500, 500] });

      const seen = await a.ranking('', weak);
      assert.equal(seen.rows.length, 100);
      assert.ok(!seen.rows.some((r) => r.id === weak.id));
      assert.ok(seen.me, 'me');
      assert.equal(seen.me.id, weak.id);
      assert.equal(seen.me.username, weak.username);
      assert.equal(seen.me.n, 1);
      near(seen.me.mean_alpha, 1, 'me');
      near(seen.me.skill, 1 - 1.645 * 5, 'me');
      assert.ok(seen.me.rank > 105, `rank ${seen.me.rank}`);
      assert.equal(seen.rows[0].id, star.id);

      const top = await a.ranking('', star);
      assert.equal(top.rows[0].id, star.id);
      assert.equal(top.me, null, 'already in the rows');
      assert.equal((await a.ranking()).me, null, 'no session');
      const dead = await a.call('GET', '/rankings', { ...weak, cookie: 'auth_token=not.a.token' });
      assert.equal(dead.statusCode, 200, 'a dead session is no error on a public route');
      assert.equal(dead.json().me, null);
      // A window the caller has no trade in: no row to show.
      assert.equal((await a.ranking('?min_trades=2', weak)).me, null);
    });
  });

  describe('windows at their day boundaries', () => {
    let a: Awaited<ReturnType<typeof tradingApp>>;
    before(async () => {
      a = await tradingApp(dialect, new FakeClock(Date.parse('2026-02-01T12:00:00Z')));
    });
    after(() => a.t.close());

    test('7d, 30d, 90d, all by exit time, whole UTC days; min_trades narrows each', async () => {
      const at = (iso: string) => a.t.clock.set(iso);
      at('2026-02-01T12:00:00Z');
      const old = await registerAndLogin(a.t.app, 'old');
      await a.trade(old, { exit: 130, bench: [500, 500] }); // closed 2026-02-01: in 90d, not in 30d

      at('2026-03-03T23:40:00Z');
      const edgeIn = await registerAndLogin(a.t.app, 'edgein');
      const edgeOut = await registerAndLogin(a.t.app, 'edgeout');
      const twice = await registerAndLogin(a.t.app, 'twice');
      const inId = await a.open(edgeIn, 'AAPL', 'LONG');
      a.prices.set('AAPL', 100);
      const outId = await a.open(edgeOut, 'AAPL', 'LONG');
      a.prices.set('AAPL', 110);
      at('2026-03-03T23:59:59.999Z');
      assert.equal((await a.call('POST', '/bet/close', edgeOut, { bet_id: outId })).statusCode, 200);
      at('2026-03-04T00:00:00.000Z');
      assert.equal((await a.call('POST', '/bet/close', edgeIn, { bet_id: inId })).statusCode, 200);
      await a.trade(twice, { exit: 105, bench: [500, 500] });
      await a.trade(twice, { exit: 105, bench: [500, 500] });

      const ids = (rows: Array<{ id: number }>) =>
        rows
          .map((r) => r.id)
          .filter((id) => [old.id, edgeIn.id, edgeOut.id, twice.id].includes(id))
          .sort((x, y) => x - y);
      const sorted = (...xs: number[]) => xs.sort((x, y) => x - y);

      // The last instant of 2026-03-10: the 7-day window is 03-04 … 03-10.
      at('2026-03-10T23:59:59.999Z');
      assert.deepEqual(ids(await a.board('?period=7d')), sorted(edgeIn.id, twice.id));
      assert.deepEqual(ids(await a.board('?period=30d')), sorted(edgeIn.id, edgeOut.id, twice.id));
      assert.deepEqual(ids(await a.board('?period=90d')), sorted(old.id, edgeIn.id, edgeOut.id, twice.id));
      assert.deepEqual(ids(await a.board('?period=all')), sorted(old.id, edgeIn.id, edgeOut.id, twice.id));
      assert.deepEqual(ids(await a.board('?period=7d&min_trades=2')), [twice.id]);
      assert.deepEqual(ids(await a.board('?min_trades=2')), [twice.id], 'min_trades alone: the all-time aggregate');
      assert.deepEqual(ids((await a.ranking('?period=7d')).rows), sorted(edgeIn.id, twice.id));
      assert.deepEqual(ids((await a.ranking('?period=7d&min_trades=2')).rows), [twice.id]);
      assert.deepEqual(ids((await a.ranking()).rows), sorted(old.id, edgeIn.id, edgeOut.id, twice.id), 'default 90d');
      const w = (await a.board('?period=7d')).find((r) => r.id === twice.id);
      assert.deepEqual(w, { id: twice.id, username: twice.username, total_score: 10, total_trades: 2 });

      // 00:00 UTC on 03-11: the window moves past 03-04.
      at('2026-03-11T00:00:00.000Z');
      assert.deepEqual(ids(await a.board('?period=7d')), []);
      assert.deepEqual(ids(await a.board('?period=30d')), sorted(edgeIn.id, edgeOut.id, twice.id));
      // 30 days after 02-01 ended, the old trade leaves 30d but stays in 90d and all.
      assert.deepEqual(ids((await a.ranking('?period=30d')).rows), sorted(edgeIn.id, edgeOut.id, twice.id));
      assert.deepEqual(ids(await a.board()), sorted(old.id, edgeIn.id, edgeOut.id, twice.id), 'SPEC default: all time');
    });
  });

  test('the OpenAPI document declares the optional window and paging parameters and /rankings', async () => {
    const a = await tradingApp(dialect);
    try {
      const doc = (await a.call('GET', '/openapi.json')).json();
      const params = doc.paths['/leaderboard'].get.parameters as Array<{ name: string; in: string; required?: boolean; schema: { enum?: string[] } }>;
      assert.deepEqual(params.map((p) => [p.name, p.in, p.required ?? false]).sort(), [
        ['limit', 'query', false],
        ['min_trades', 'query', false],
        ['offset', 'query', false],
        ['period', 'query', false],
      ]);
      assert.deepEqual(params.find((p) => p.name === 'period')?.schema.enum, ['7d', '30d', '90d', '365d', 'all']);
      assert.match(doc.paths['/leaderboard'].get.description, /day-granular/);
      const r = doc.paths['/rankings'].get;
      assert.deepEqual(Object.keys(r.responses).sort(), ['200', '400', '429', '500']);
      assert.ok(doc.components.schemas.RankingsResponse && doc.components.schemas.RankingRow);
    } finally {
      await a.t.close();
    }
  });
});
