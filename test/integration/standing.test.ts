// GET /me/standing and the leaderboard's paging (issue 24, item 2): the
// caller's score, trades and rank in every window agree with where GET
// /leaderboard lists them, past the top 100 too, read from the aggregates.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { utcDate } from '../../src/domain/market-calendar.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { deleteTestUser, insertTestUsers } from '../helpers/users.js';

const DAY = 86_400_000;

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

forEachDialect('GET /me/standing and leaderboard paging', (dialect) => {
  let t: TestApp;
  const statements: string[] = [];
  let recording = false;
  let me: TestUser;
  let idle: TestUser;
  let others: number[];

  /** Closed bets of one user on one day, written to both aggregates as closes write them. */
  async function closed(userId: number, daysAgo: number, score: number, trades = 1): Promise<void> {
    const day = utcDate(t.clock.now() - daysAgo * DAY);
    await t.ctx.db
      .insertInto('user_day_stats')
      .values({ user_id: userId, day, trades, score_sum: score, wins: score > 0 ? trades : 0, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 })
      .execute();
    await t.ctx.db
      .insertInto('leaderboard')
      .values({ user_id: userId, total_score: score, total_trades: trades })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet((eb) => ({
          total_score: eb('leaderboard.total_score', '+', eb.ref('excluded.total_score')),
          total_trades: eb('leaderboard.total_trades', '+', eb.ref('excluded.total_trades')),
        })),
      )
      .execute();
    // Written behind the service's back: the boards it shares for a second are made anew.
    t.ctx.sharedAnswers.dropLeaderboards();
  }

  before(async () => {
    t = await createTestApp(dialect, { onQuery: (sql) => recording && statements.push(sql) });
    me = await registerAndLogin(t.app, 'stand');
    idle = await registerAndLogin(t.app, 'idle');
    // 150 traders with scores 1..150 all time; the even ones also traded within the week.
    others = await insertTestUsers(t.ctx, 150, 'board');
    for (const [i, id] of others.entries()) {
      await closed(id, 40, i + 1);
      if (i % 2 === 0) await closed(id, 2, 1);
    }
    // The caller: 30.5 all time from two days (one 40 days back, one today), three trades.
    await closed(me.id, 40, 20, 2);
    await closed(me.id, 0, 10.5);
    // A deleted account ahead of everyone never counts.
    const [gone] = await insertTestUsers(t.ctx, 1, 'gone');
    await closed(gone!, 1, 10_000);
    await deleteTestUser(t.ctx, gone!);
  });
  after(() => t.close());

  const get = (url: string, user?: TestUser) => t.app.inject({ method: 'GET', url, headers: user ? { cookie: user.cookie } : {} });
  const standing = async (user: TestUser, query = ''): Promise<Standing> => {
    const res = await get(`/me/standing${query}`, user);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  /** Every row of a board, page by page. */
  async function wholeBoard(query: string): Promise<BoardRow[]> {
    const rows: BoardRow[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await get(`/leaderboard?${query}${query ? '&' : ''}limit=100&offset=${offset}`);
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json() as BoardRow[];
      rows.push(...page);
      if (page.length < 100) return rows;
    }
  }

  test('without limit and offset the leaderboard is exactly the top 100; pages continue it in order', async () => {
    const top = (await get('/leaderboard')).json() as BoardRow[];
    assert.equal(top.length, 100);
    const all = await wholeBoard('');
    assert.equal(all.length, 151, '150 traders and the caller; the deleted account is not listed');
    assert.deepEqual(all.slice(0, 100), top);
    const page = (await get('/leaderboard?limit=7&offset=120')).json() as BoardRow[];
    assert.deepEqual(page, all.slice(120, 127));
    assert.deepEqual((await get('/leaderboard?offset=10000')).json(), []);
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'offset=10001', 'limit=x']) {
      const res = await get(`/leaderboard?${bad}`);
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
    }
  });

  test("the caller's rank in every window is their place on that window's board, outside the top 100 too", async () => {
    const s = await standing(me);
    assert.equal(s.min_trades, 1);
    assert.deepEqual(
      s.windows.map((w) => w.period),
      ['all', '7d', '30d', '90d', '365d'],
    );
    for (const w of s.windows) {
      const board = await wholeBoard(w.period === 'all' ? '' : `period=${w.period}`);
      const at = board.findIndex((r) => r.id === me.id);
      assert.ok(at >= 0, `${w.period}: the caller is on the board`);
      assert.equal(w.rank, at + 1, `${w.period}: rank`);
      assert.equal(w.total_trades, board[at]!.total_trades, `${w.period}: trades`);
      assert.ok(Math.abs(w.total_score - board[at]!.total_score) < 1e-9, `${w.period}: score`);
    }
    const all = s.windows.find((w) => w.period === 'all')!;
    assert.deepEqual([all.total_score, all.total_trades], [30.5, 3]);
    assert.ok(all.rank! > 100, 'outside the top 100 of all time');
    const week = s.windows.find((w) => w.period === '7d')!;
    assert.deepEqual([week.total_score, week.total_trades, week.rank], [10.5, 1, 1], 'ahead of the 75 who made 1 this week');
  });

  test('min_trades ranks among users with that many closed bets, and below it the caller is unranked', async () => {
    const s = await standing(me, '?min_trades=2');
    assert.equal(s.min_trades, 2);
    const all = s.windows.find((w) => w.period === 'all')!;
    const board = await wholeBoard('min_trades=2');
    assert.equal(all.rank, board.findIndex((r) => r.id === me.id) + 1);
    const week = s.windows.find((w) => w.period === '7d')!;
    assert.deepEqual([week.total_score, week.total_trades, week.rank], [10.5, 1, null]);
    assert.equal((await get('/me/standing?min_trades=0', me)).statusCode, 400);
    assert.equal((await get('/me/standing?period=7d', me)).statusCode, 400, 'unknown parameters are refused');
  });

  test('a caller without closed bets is unranked everywhere, with zeros; without a session 401', async () => {
    const s = await standing(idle);
    for (const w of s.windows) assert.deepEqual([w.total_score, w.total_trades, w.rank], [0, 0, null], w.period);
    const anonymous = await get('/me/standing');
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.headers['cache-control'], 'no-store');
  });

  test('ties: equal score and trades rank by id, as the board orders them', async () => {
    const [a, b] = await insertTestUsers(t.ctx, 2, 'tie');
    const tied = await registerAndLogin(t.app, 'tied');
    for (const id of [a!, b!, tied.id]) await closed(id, 3, 1_000_000);
    const week = (await standing(tied)).windows.find((w) => w.period === '7d')!;
    const board = await wholeBoard('period=7d');
    assert.equal(week.rank, board.findIndex((r) => r.id === tied.id) + 1);
    assert.equal(week.rank, 3, 'behind the two tied accounts made before it');
  });

  /** Ranked bets of one user on one day, written to the ranked sums and the ranked board's aggregate as the handlers write them. */
  async function rankedClosed(userId: number, daysAgo: number, score: number, trades = 1): Promise<void> {
    const day = utcDate(t.clock.now() - daysAgo * DAY);
    const ranked = { ranked_trades: trades, ranked_score_sum: score, ranked_wins: score > 0 ? trades : 0 };
    await t.ctx.db
      .insertInto('user_day_stats')
      .values({ user_id: userId, day, trades, score_sum: score, wins: 0, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0, ...ranked })
      .onConflict((oc) =>
        oc.columns(['user_id', 'day']).doUpdateSet((eb) => ({
          ranked_trades: eb('user_day_stats.ranked_trades', '+', eb.ref('excluded.ranked_trades')),
          ranked_score_sum: eb('user_day_stats.ranked_score_sum', '+', eb.ref('excluded.ranked_score_sum')),
        })),
      )
      .execute();
    await t.ctx.db
      .insertInto('ranked_leaderboard')
      .values({ user_id: userId, total_score: score, total_trades: trades })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet((eb) => ({
          total_score: eb('ranked_leaderboard.total_score', '+', eb.ref('excluded.total_score')),
          total_trades: eb('ranked_leaderboard.total_trades', '+', eb.ref('excluded.total_trades')),
        })),
      )
      .execute();
    t.ctx.sharedAnswers.dropLeaderboards();
  }

  test("ranked_windows: the same windows in the same order, each the caller's place on GET /leaderboard/ranked", async () => {
    const ranker = await registerAndLogin(t.app, 'ranker');
    const rivals = await insertTestUsers(t.ctx, 5, 'rival');
    // Rivals with ranked scores 1..5 all time; the first three also within the week at 100 each.
    for (const [i, id] of rivals.entries()) {
      await rankedClosed(id, 40, i + 1);
      if (i < 3) await rankedClosed(id, 1, 100);
    }
    await rankedClosed(ranker.id, 40, 3.5, 2);
    await rankedClosed(ranker.id, 0, 50);
    const s = await standing(ranker);
    assert.deepEqual(
      s.ranked_windows.map((w) => w.period),
      s.windows.map((w) => w.period),
    );
    for (const w of s.ranked_windows) {
      const rows: BoardRow[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = (
          await get(`/leaderboard/ranked?${w.period === 'all' ? '' : `period=${w.period}&`}limit=100&offset=${offset}`)
        ).json() as BoardRow[];
        rows.push(...page);
        if (page.length < 100) break;
      }
      const at = rows.findIndex((r) => r.id === ranker.id);
      assert.ok(at >= 0, `${w.period}: on the ranked board`);
      assert.equal(w.rank, at + 1, `${w.period}: rank`);
      assert.deepEqual([w.total_score, w.total_trades], [rows[at]!.total_score, rows[at]!.total_trades], w.period);
    }
    const all = s.ranked_windows.find((w) => w.period === 'all')!;
    assert.deepEqual([all.total_score, all.total_trades], [53.5, 3]);
    const week = s.ranked_windows.find((w) => w.period === '7d')!;
    assert.deepEqual([week.total_score, week.total_trades, week.rank], [50, 1, 4], 'behind the three rivals with 100 this week');
    const two = await standing(ranker, '?min_trades=2');
    assert.equal(two.ranked_windows.find((w) => w.period === '7d')!.rank, null, 'one ranked bet this week: unranked at 2');
    assert.notEqual(two.ranked_windows.find((w) => w.period === 'all')!.rank, null);
    // A caller with raw closes but no ranked bet: zeros and unranked on every ranked window.
    for (const w of (await standing(me)).ranked_windows) assert.deepEqual([w.total_score, w.total_trades, w.rank], [0, 0, null], w.period);
  });

  test('standing reads only the aggregates, never the bets', async () => {
    statements.length = 0;
    recording = true;
    try {
      await standing(me);
    } finally {
      recording = false;
    }
    assert.ok(statements.length > 0);
    for (const sql of statements) assert.doesNotMatch(sql, /\bfrom\s+"?bets"?/i, sql);
  });
});
