// 0023_ranked_aggregates fills the ranked board's all-time rows and the ranked
// day sums from the bets already ranked (ranked_gain set), with ranked alpha
// from the committed benchmark price; the raw sums stay as they were. Its down
// removes what it added, and up runs again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

const near = (a: unknown, b: number, what: string) => assert.ok(Math.abs(Number(a) - b) < 1e-9, `${what}: ${a} ≈ ${b}`);

forEachDialect('0023_ranked_aggregates backfill', (dialect) => {
  test('ranked bets become ranked_leaderboard rows and ranked day sums; unranked, cancelled and open bets do not', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0022_committed_prices');
      const { db, insertUser: userId } = migrationFixture(handle);
      const ranked = await userId('ranked_trader');
      const riskless = await userId('quick_trader');
      const opened = Date.parse('2026-03-01T20:00:00Z');
      const bet = (
        user: number,
        b: { status: string; gain?: number; ranked?: number | null; closedAt?: string; dir?: string; bench?: [number | null, number | null] },
      ) => ({
        user_id: user,
        ticker: 'AAPL',
        direction: b.dir ?? 'LONG',
        status: b.status,
        entry_price: 100,
        exit_price: b.closedAt ? 100 + (b.gain ?? 0) : null,
        percentage_gain: b.closedAt ? (b.gain ?? 0) : null,
        opened_at: opened,
        closed_at: b.closedAt ? Date.parse(b.closedAt) : null,
        last_event_at: opened,
        ranked_gain: b.ranked ?? null,
        committed_price: b.ranked === undefined || b.ranked === null ? null : 100,
        benchmark_committed: b.bench?.[0] ?? null,
        benchmark_exit: b.bench?.[1] ?? null,
      });
      await db
        .insertInto('bets')
        .values([
          // 2026-03-01: two ranked (alphas 4 − 2 = 2, and −3 − 1 = −4 for the SHORT as SPY fell 1 %), one closed inside its window.
          bet(ranked, { status: 'CLOSED', gain: 5, ranked: 4, closedAt: '2026-03-01T21:00:00Z', bench: [500, 510] }),
          bet(ranked, { status: 'CLOSED', gain: -2, ranked: -3, closedAt: '2026-03-01T23:59:59.999Z', dir: 'SHORT', bench: [500, 495] }),
          bet(ranked, { status: 'CLOSED', gain: 9, ranked: null, closedAt: '2026-03-01T20:01:00Z' }),
          // 2026-03-02: ranked without a committed benchmark price (no alpha).
          bet(ranked, { status: 'CLOSED', gain: 7, ranked: 6, closedAt: '2026-03-02T00:00:00Z', bench: [null, 500] }),
          bet(ranked, { status: 'CANCELLED', gain: 0, closedAt: '2026-03-02T00:01:00Z' }),
          bet(ranked, { status: 'OPEN' }),
          bet(riskless, { status: 'CLOSED', gain: 30, ranked: null, closedAt: '2026-03-01T20:02:00Z' }),
        ])
        .execute();
      // The raw day rows, as the handlers wrote them before this migration.
      await db
        .insertInto('user_day_stats')
        .values([
          { user_id: ranked, day: '2026-03-01', trades: 3, score_sum: 12, wins: 2, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 },
          { user_id: ranked, day: '2026-03-02', trades: 1, score_sum: 7, wins: 1, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 },
          { user_id: riskless, day: '2026-03-01', trades: 1, score_sum: 30, wins: 1, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 },
        ])
        .execute();

      await migrateToLatest(handle);
      const board = await handle.db.selectFrom('ranked_leaderboard').selectAll().execute();
      assert.equal(board.length, 1, 'only the trader with ranked bets');
      assert.equal(Number(board[0]!.user_id), ranked);
      near(board[0]!.total_score, 7, 'ranked gains 4 − 3 + 6');
      assert.equal(Number(board[0]!.total_trades), 3);

      const rows = await handle.db.selectFrom('user_day_stats').selectAll().orderBy('user_id').orderBy('day').execute();
      const shaped = rows.map((r) => ({
        user: Number(r.user_id),
        day: r.day,
        raw: [Number(r.trades), Number(r.score_sum), Number(r.wins)],
        ranked: [Number(r.ranked_trades), Number(r.ranked_score_sum), Number(r.ranked_wins), Number(r.ranked_alpha_count)],
        alpha: [Number(r.ranked_alpha_sum), Number(r.ranked_alpha_sq_sum)],
      }));
      assert.equal(shaped.length, 3, 'no new day rows');
      const [first, second, quick] = [shaped[0]!, shaped[1]!, shaped[2]!];
      assert.deepEqual([first.user, first.day, first.raw, first.ranked], [ranked, '2026-03-01', [3, 12, 2], [2, 1, 1, 2]]);
      near(first.alpha[0], 2 - 4, 'alphas 2 and −4');
      near(first.alpha[1], 4 + 16, 'their squares');
      assert.deepEqual([second.day, second.raw, second.ranked, second.alpha], ['2026-03-02', [1, 7, 1], [1, 6, 1, 0], [0, 0]]);
      assert.deepEqual([quick.user, quick.raw, quick.ranked, quick.alpha], [riskless, [1, 30, 1], [0, 0, 0, 0], [0, 0]]);

      // Down removes the table, the columns and the index; up again gives the same rows.
      await migrateTestDatabaseTo(handle, '0022_committed_prices');
      const columns = Object.keys((await db.selectFrom('user_day_stats').selectAll().executeTakeFirstOrThrow()) as object);
      assert.ok(!columns.some((c) => c.startsWith('ranked_')), columns.join());
      await assert.rejects(db.selectFrom('ranked_leaderboard').selectAll().execute());
      await migrateToLatest(handle);
      assert.equal((await handle.db.selectFrom('ranked_leaderboard').selectAll().execute()).length, 1);
    } finally {
      await handle.close();
    }
  });
});
