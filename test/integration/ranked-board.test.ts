// The ranked board (GET /leaderboard/ranked), /me/standing's ranked_windows
// and /rankings on ranked gains (issue 33 item 3): only bets still open when
// their cancel window ended count, from their committed price; a close inside
// the window, a cancel and an unranked bet never do. The aggregates the
// handlers keep equal a recount from the bets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { utcDate } from '../../src/domain/market-calendar.js';
import { rankedCount } from '../../src/domain/rankings.js';
import { FakeClock } from '../../src/lib/clock.js';
import { findBetById } from '../../src/repositories/bets.js';
import { createTestApp, registerAndLogin, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const MIN = 60_000;
const DAY = 86_400_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const near = (a: number | undefined, b: number, what = '') => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≈ ${b}`);

interface BoardRow {
  id: number;
  username: string;
  total_score: number;
  total_trades: number;
}
interface StandingWindow {
  period: string;
  total_score: number;
  total_trades: number;
  rank: number | null;
}
interface Standing {
  min_trades: number;
  windows: StandingWindow[];
  ranked_windows: StandingWindow[];
}

interface RankedTrade {
  direction?: 'LONG' | 'SHORT';
  entry?: number;
  /** The price at the end of the cancel window: the committed price. */
  committed: number;
  exit: number;
  /** SPY at open, at the committed instant and at exit. */
  bench?: [number, number, number];
}

async function boardApp(dialect: 'sqlite' | 'postgres', clock?: FakeClock) {
  const prices = new FakePriceProvider({ AAPL: 100, 'BTC-USD': 50_000, SPY: 500 });
  const t = await createTestApp(dialect, {
    clock,
    deps: { prices },
    config: {
      capacities: { baseBets: 50, baseFollows: 5 },
      // Every request publishes a quote of its own: the committed price is the one the test sets at the instant.
      prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 },
    },
  });
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: object) =>
    t.app.inject({ method, url, payload, headers: user ? { cookie: user.cookie } : {} });
  const open = async (u: TestUser, direction: 'LONG' | 'SHORT' = 'LONG') => {
    const res = await call('POST', '/bet/open', u, { ticker: 'AAPL', direction });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };
  const close = async (u: TestUser, id: number) => {
    const res = await call('POST', '/bet/close', u, { bet_id: id });
    assert.equal(res.statusCode, 200, res.body);
  };
  /** Held past the cancel window, committed by the job at `committed`, closed a minute later at `exit`. */
  async function ranked(u: TestUser, tr: RankedTrade): Promise<number> {
    const bench = tr.bench ?? [500, 500, 500];
    prices.set('AAPL', tr.entry ?? 100);
    prices.set('SPY', bench[0]);
    const id = await open(u, tr.direction);
    t.clock.advance(CANCEL_WINDOW_MS + 1_000);
    prices.set('AAPL', tr.committed);
    prices.set('SPY', bench[1]);
    await commitDueBets(t.ctx, quiet);
    t.clock.advance(MIN);
    prices.set('AAPL', tr.exit);
    prices.set('SPY', bench[2]);
    await close(u, id);
    return id;
  }
  /** Opened and closed inside its cancel window: riskless, never ranked. */
  async function quick(u: TestUser, entry: number, exit: number): Promise<number> {
    prices.set('AAPL', entry);
    const id = await open(u);
    t.clock.advance(MIN);
    prices.set('AAPL', exit);
    await close(u, id);
    return id;
  }
  async function cancelled(u: TestUser): Promise<void> {
    const id = await open(u);
    t.clock.advance(MIN);
    assert.equal((await call('DELETE', `/bet/${id}`, u)).statusCode, 200);
  }
  const get = async <T>(url: string, user?: TestUser): Promise<T> => {
    const res = await call('GET', url, user);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json() as T;
  };
  const rankedBoard = (query = '') => get<BoardRow[]>(`/leaderboard/ranked${query}`);
  const rawBoard = (query = '') => get<BoardRow[]>(`/leaderboard${query}`);
  return { t, prices, call, open, close, ranked, quick, cancelled, get, rankedBoard, rawBoard };
}

forEachDialect('the ranked board', (dialect) => {
  describe('what counts', () => {
    let a: Awaited<ReturnType<typeof boardApp>>;
    before(async () => {
      a = await boardApp(dialect);
    });
    after(() => a.t.close());

    test('only ranked gains: committed price to exit; a close inside the window, a cancel and an unranked bet are absent', async () => {
      const held = await registerAndLogin(a.t.app, 'held');
      const quickOnly = await registerAndLogin(a.t.app, 'quick');
      const cancelOnly = await registerAndLogin(a.t.app, 'cancel');
      const unranked = await registerAndLogin(a.t.app, 'unrank');

      // Held past its window: raw +10 % from 100, ranked from the committed 104 to 110.
      const heldId = await a.ranked(held, { entry: 100, committed: 104, exit: 110 });
      // The same trader's riskless +20 % close and a cancel count on SPEC's board only (the close).
      await a.quick(held, 100, 120);
      await a.cancelled(held);
      await a.quick(quickOnly, 100, 130);
      await a.cancelled(cancelOnly);
      // A bet marked unranked (generated data) is never committed, however long it is held.
      a.prices.set('AAPL', 100);
      const unrankedId = await a.open(unranked);
      await a.t.ctx.db.updateTable('bets').set({ unranked_reason: 'entry_not_quoted' }).where('id', '=', unrankedId).execute();
      a.t.clock.advance(CANCEL_WINDOW_MS + MIN);
      await commitDueBets(a.t.ctx, quiet);
      a.prices.set('AAPL', 150);
      await a.close(unranked, unrankedId);

      const bet = await findBetById(a.t.ctx.db, heldId);
      assert.equal(bet?.committed_price, 104);
      near(bet?.ranked_gain ?? undefined, ((110 - 104) / 104) * 100, 'ranked gain');
      assert.equal((await findBetById(a.t.ctx.db, unrankedId))?.ranked_gain, null);

      for (const q of ['', '?period=7d', '?period=all']) {
        const board = await a.rankedBoard(q);
        const mine = board.find((r) => r.id === held.id);
        assert.ok(mine, `${q}: the held bet's owner is on the ranked board`);
        near(mine.total_score, ((110 - 104) / 104) * 100, `${q} score`);
        assert.equal(mine.total_trades, 1, `${q}: one ranked bet`);
        assert.deepEqual(Object.keys(mine).sort(), ['id', 'total_score', 'total_trades', 'username']);
        for (const absent of [quickOnly, cancelOnly, unranked]) assert.ok(!board.some((r) => r.id === absent.id), `${q}: ${absent.username} absent`);
      }
      // SPEC's board is unchanged: every close counts at its raw gain.
      const raw = (await a.rawBoard()).find((r) => r.id === held.id);
      assert.deepEqual([raw?.total_score, raw?.total_trades], [30, 2]);
      assert.ok((await a.rawBoard()).some((r) => r.id === quickOnly.id));
      assert.ok((await a.rawBoard()).some((r) => r.id === unranked.id));
    });

    test('a bet closed after its window without a job pass is committed by the close itself', async () => {
      const late = await registerAndLogin(a.t.app, 'late');
      a.prices.set('AAPL', 100);
      const id = await a.open(late, 'SHORT');
      a.t.clock.advance(CANCEL_WINDOW_MS);
      // A quote published at the committed instant (anyone's price request publishes one here).
      a.prices.set('AAPL', 95);
      await a.t.ctx.prices.quote('AAPL');
      a.t.clock.advance(MIN);
      a.prices.set('AAPL', 90);
      await a.close(late, id);
      const bet = await findBetById(a.t.ctx.db, id);
      assert.equal(bet?.committed_price, 95);
      const row = (await a.rankedBoard()).find((r) => r.id === late.id);
      near(row?.total_score, ((95 - 90) / 95) * 100, 'SHORT from 95 to 90');
    });

    test('the aggregates equal a recount from the bets: all-time rows and each day row', async () => {
      const mixed = await registerAndLogin(a.t.app, 'mixed');
      await a.ranked(mixed, { committed: 101, exit: 99, bench: [500, 505, 495] });
      await a.ranked(mixed, { direction: 'SHORT', committed: 99, exit: 97, bench: [500, 495, 500] });
      await a.quick(mixed, 100, 140);

      const bets = await a.t.ctx.db.selectFrom('bets').selectAll().where('status', '=', 'CLOSED').execute();
      const allTime = new Map<number, { score: number; trades: number }>();
      const days = new Map<string, { trades: number; score: number; wins: number; n: number; sum: number; sq: number }>();
      for (const b of bets) {
        const c = rankedCount(b);
        if (!c) continue;
        const at = allTime.get(Number(b.user_id)) ?? { score: 0, trades: 0 };
        allTime.set(Number(b.user_id), { score: at.score + c.gain, trades: at.trades + 1 });
        const key = `${b.user_id}|${utcDate(b.closed_at!)}`;
        const d = days.get(key) ?? { trades: 0, score: 0, wins: 0, n: 0, sum: 0, sq: 0 };
        const alpha = c.alpha ?? 0;
        days.set(key, {
          trades: d.trades + 1,
          score: d.score + c.gain,
          wins: d.wins + (c.gain > 0 ? 1 : 0),
          n: d.n + (c.alpha === null ? 0 : 1),
          sum: d.sum + alpha,
          sq: d.sq + alpha * alpha,
        });
      }
      assert.ok(allTime.size >= 3, 'several ranked traders');

      const table = await a.t.ctx.db.selectFrom('ranked_leaderboard').selectAll().execute();
      assert.equal(table.length, allTime.size, 'one row per user with a ranked bet, none for the others');
      for (const r of table) {
        const want = allTime.get(Number(r.user_id));
        assert.ok(want, `user ${r.user_id}`);
        assert.equal(Number(r.total_trades), want.trades);
        near(Number(r.total_score), want.score, `user ${r.user_id} score`);
      }
      const dayRows = await a.t.ctx.db.selectFrom('user_day_stats').selectAll().execute();
      for (const r of dayRows) {
        const want = days.get(`${r.user_id}|${r.day}`) ?? { trades: 0, score: 0, wins: 0, n: 0, sum: 0, sq: 0 };
        assert.equal(Number(r.ranked_trades), want.trades, `${r.user_id} ${r.day} trades`);
        near(Number(r.ranked_score_sum), want.score, 'score');
        assert.equal(Number(r.ranked_wins), want.wins, 'wins');
        assert.equal(Number(r.ranked_alpha_count), want.n, 'alpha count');
        near(Number(r.ranked_alpha_sum), want.sum, 'alpha sum');
        near(Number(r.ranked_alpha_sq_sum), want.sq, 'alpha squares');
      }
      const withRanked = dayRows.filter((r) => Number(r.ranked_trades) > 0).length;
      assert.equal(withRanked, days.size, 'every ranked day has its row');
    });

    test('GET /me/standing: ranked_windows beside windows, same order, ranked gains and the ranked board place', async () => {
      const both = await registerAndLogin(a.t.app, 'both');
      await a.ranked(both, { committed: 100, exit: 103 });
      await a.quick(both, 100, 150);
      const riskless = await registerAndLogin(a.t.app, 'riskless');
      await a.quick(riskless, 100, 200);

      const res = await a.call('GET', '/me/standing', both);
      assert.equal(res.statusCode, 200, res.body);
      const s = res.json() as Standing;
      assert.deepEqual(Object.keys(s).sort(), ['min_trades', 'ranked_windows', 'windows']);
      assert.deepEqual(
        s.ranked_windows.map((w) => w.period),
        s.windows.map((w) => w.period),
      );
      assert.deepEqual(
        s.windows.map((w) => w.period),
        ['all', '7d', '30d', '90d', '365d'],
      );
      const raw = s.windows.find((w) => w.period === 'all')!;
      near(raw.total_score, 53, 'raw: 3 + 50');
      assert.equal(raw.total_trades, 2);
      for (const w of s.ranked_windows) {
        near(w.total_score, 3, `${w.period}: ranked`);
        assert.equal(w.total_trades, 1, w.period);
        const board = await a.rankedBoard(w.period === 'all' ? '?limit=100' : `?period=${w.period}&limit=100`);
        assert.equal(w.rank, board.findIndex((r) => r.id === both.id) + 1, `${w.period}: place on the ranked board`);
      }
      const two = (await a.get<Standing>('/me/standing?min_trades=2', both)).ranked_windows;
      assert.ok(
        two.every((w) => w.rank === null),
        'one ranked bet: unranked at min_trades=2',
      );
      const none = await a.get<Standing>('/me/standing', riskless);
      for (const w of none.ranked_windows) assert.deepEqual([w.total_score, w.total_trades, w.rank], [0, 0, null], w.period);
      assert.ok(none.windows.every((w) => w.total_trades === 1));
    });

    test('GET /rankings: ranked gains and ranked alpha from committed prices; a trader whose closes are all inside the window is absent', async () => {
      const skilled = await registerAndLogin(a.t.app, 'skilled');
      // Entry 100, committed 100, exit 110; SPY 500 at open, 510 committed, 520 at exit: ranked alpha 10 − 100 × 10 / 510.
      await a.ranked(skilled, { committed: 100, exit: 110, bench: [500, 510, 520] });
      const riskless = await registerAndLogin(a.t.app, 'farmer');
      a.prices.set('SPY', 500);
      for (let i = 0; i < 5; i++) await a.quick(riskless, 100, 101);

      const r = await a.get<{ rows: Array<{ id: number; n: number; mean_alpha: number; total_score: number }> }>('/rankings?period=all');
      const mine = r.rows.find((x) => x.id === skilled.id);
      assert.ok(mine, 'the ranked trader is ranked');
      assert.equal(mine.n, 1);
      near(mine.mean_alpha, 10 - (100 * 10) / 510, 'ranked alpha from the committed benchmark');
      near(mine.total_score, 10, 'ranked gains');
      assert.ok(!r.rows.some((x) => x.id === riskless.id), 'five riskless closes rank nowhere');
      assert.ok(
        (await a.rawBoard()).some((x) => x.id === riskless.id),
        'they count on SPEC’s board',
      );
    });

    test('public, shared for a second, parameters as GET /leaderboard; a close shows at once', async () => {
      const res = await a.call('GET', '/leaderboard/ranked');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'public, max-age=1');
      for (const bad of ['?_=1', '?period=5d', '?min_trades=0', '?limit=0', '?limit=101', '?offset=-1', '?offset=10001']) {
        const r = await a.call('GET', `/leaderboard/ranked${bad}`);
        assert.equal(r.statusCode, 400, bad);
        assert.deepEqual(Object.keys(r.json()), ['error']);
      }
      const fresh = await registerAndLogin(a.t.app, 'fresh');
      a.prices.set('AAPL', 100);
      const id = await a.open(fresh);
      a.t.clock.advance(CANCEL_WINDOW_MS + 1_000);
      await commitDueBets(a.t.ctx, quiet);
      a.prices.set('AAPL', 1000);
      // Read, then closed at the same instant (the shared answer is still fresh): the commit drops it.
      const before = await a.rankedBoard();
      assert.ok(!before.some((r) => r.id === fresh.id));
      await a.close(fresh, id);
      const afterClose = await a.rankedBoard();
      assert.equal(afterClose[0]?.id, fresh.id, 'the shared answer was dropped when the close committed');
      const doc = (await a.call('GET', '/openapi.json')).json();
      const op = doc.paths['/leaderboard/ranked'].get;
      assert.equal(op.operationId, 'getRankedLeaderboard');
      assert.deepEqual(op.security, []);
      assert.deepEqual((op.parameters as Array<{ name: string }>).map((p) => p.name).sort(), ['limit', 'min_trades', 'offset', 'period']);
    });
  });

  describe('windows, min_trades and paging', () => {
    let a: Awaited<ReturnType<typeof boardApp>>;
    before(async () => {
      a = await boardApp(dialect, new FakeClock(Date.parse('2026-02-01T12:00:00Z')));
    });
    after(() => a.t.close());

    test('by exit day, as GET /leaderboard; min_trades counts ranked bets; pages continue the board in order', async () => {
      const old = await registerAndLogin(a.t.app, 'rold');
      await a.ranked(old, { committed: 100, exit: 130 }); // 2026-02-01: in 90d, not in 30d
      a.t.clock.set('2026-03-10T12:00:00Z');
      const twice = await registerAndLogin(a.t.app, 'rtwice');
      await a.ranked(twice, { committed: 100, exit: 105 });
      await a.ranked(twice, { committed: 100, exit: 105 });
      const once = await registerAndLogin(a.t.app, 'ronce');
      await a.ranked(once, { committed: 100, exit: 120 });
      await a.quick(once, 100, 110); // not ranked: min_trades stays at one ranked bet
      const ours = [old.id, twice.id, once.id];
      const ids = (rows: BoardRow[]) => rows.map((r) => r.id).filter((id) => ours.includes(id));

      assert.deepEqual(ids(await a.rankedBoard('?period=7d')), [once.id, twice.id], 'score order: 20, then 10');
      assert.deepEqual(ids(await a.rankedBoard('?period=30d')), [once.id, twice.id]);
      assert.deepEqual(ids(await a.rankedBoard('?period=90d')), [old.id, once.id, twice.id]);
      assert.deepEqual(ids(await a.rankedBoard('?period=all')), [old.id, once.id, twice.id]);
      assert.deepEqual(ids(await a.rankedBoard()), [old.id, once.id, twice.id]);
      assert.deepEqual(ids(await a.rankedBoard('?period=7d&min_trades=2')), [twice.id]);
      assert.deepEqual(ids(await a.rankedBoard('?min_trades=2')), [twice.id], 'min_trades alone: the all-time aggregate');
      const w = (await a.rankedBoard('?period=7d')).find((r) => r.id === twice.id);
      assert.deepEqual(w, { id: twice.id, username: twice.username, total_score: 10, total_trades: 2 });

      for (const q of ['', 'period=90d&']) {
        const whole = await a.rankedBoard(`?${q}limit=100`);
        assert.ok(whole.length >= 3);
        for (let offset = 0; offset < whole.length; offset++) {
          assert.deepEqual(await a.rankedBoard(`?${q}limit=1&offset=${offset}`), [whole[offset]], `${q} offset ${offset}`);
        }
        assert.deepEqual(await a.rankedBoard(`?${q}offset=${whole.length}`), []);
      }

      // 60 days on, the 7-day and 30-day windows are empty of these trades; all time keeps them.
      a.t.clock.advance(60 * DAY);
      assert.deepEqual(ids(await a.rankedBoard('?period=30d')), []);
      assert.deepEqual(ids(await a.rankedBoard('?period=90d')), [once.id, twice.id]);
      assert.deepEqual(ids(await a.rankedBoard()), [old.id, once.id, twice.id]);
    });
  });
});
