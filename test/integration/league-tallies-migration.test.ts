// 0020_league_tallies fills each membership's tally of a league not yet
// settled from the bets that finished before it ran, so a board read after
// the upgrade counts them: the same sums the rules count from the bets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { computeBoard, type LeagueBet } from '../../src/domain/leagues.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

forEachDialect('0020_league_tallies backfill', (dialect) => {
  test('finished bets in the window on counted instruments become tallies; open, early, late and excluded ones do not', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0019_local_cancellations');
      const { db, insertUser: user } = migrationFixture(handle);
      const a = await user('alice');
      const b = await user('bob');
      const start = Date.parse('2026-04-01T00:00:00Z');
      const end = Date.parse('2026-04-08T00:00:00Z');
      const league = async (instruments: string, settled: boolean) =>
        Number(
          (
            await db
              .insertInto('leagues')
              .values({
                owner_id: a,
                name: `${instruments} league`,
                description: '',
                visibility: 'private',
                invite_code: `CODE${instruments}${settled}`.toUpperCase().slice(0, 32),
                starts_at: start,
                ends_at: end,
                member_limit: 10,
                instruments,
                min_closed_bets: 1,
                scoring: 'skill',
                created_at: 0,
                settled_at: settled ? end + 1 : null,
              })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      const stocks = await league('stocks', false);
      const settled = await league('all', true);
      for (const l of [stocks, settled]) {
        await db
          .insertInto('league_members')
          .values([a, b].map((user_id) => ({ league_id: l, user_id, joined_at: 0, left_at: null, daily_standing: 1 })))
          .execute();
      }
      const bets: LeagueBet[] = [];
      let id = 0;
      const bet = (userId: number, over: Partial<LeagueBet>) => {
        const row: LeagueBet = {
          id: ++id,
          user_id: userId,
          ticker: 'AAPL',
          direction: 'LONG',
          status: 'CLOSED',
          entry_price: 100,
          exit_price: 110,
          percentage_gain: 10,
          opened_at: start + 1000,
          closed_at: start + 5000,
          benchmark_entry: 500,
          benchmark_exit: 505,
          ...over,
        };
        bets.push(row);
      };
      bet(a, {});
      bet(a, { direction: 'SHORT', percentage_gain: -3.5, benchmark_exit: 490 });
      bet(a, { status: 'CANCELLED', percentage_gain: 0 });
      bet(a, { ticker: 'BTC-USD', percentage_gain: 50 });
      bet(a, { opened_at: start - 1, percentage_gain: 40 });
      bet(a, { closed_at: end + 1, percentage_gain: 30 });
      bet(a, { status: 'OPEN', closed_at: null, percentage_gain: null, exit_price: null, benchmark_exit: null });
      bet(b, { percentage_gain: 2, benchmark_entry: null, benchmark_exit: null });
      await db
        .insertInto('bets')
        .values(bets.map(({ id: _id, ...r }) => ({ ...r, last_event_at: r.closed_at ?? r.opened_at })))
        .execute();

      await migrateToLatest(handle);
      const rows = await handle.db
        .selectFrom('league_members')
        .select(['league_id', 'user_id', 'trades', 'cancels', 'gain_sum', 'alpha_n', 'alpha_sum', 'alpha_sq_sum'])
        .orderBy('league_id')
        .orderBy('user_id')
        .execute();
      const of = (l: number, u: number) => rows.find((r) => Number(r.league_id) === l && Number(r.user_id) === u)!;
      assert.deepEqual([of(stocks, a).trades, of(stocks, a).cancels, of(stocks, a).gain_sum, of(stocks, a).alpha_n], [2, 1, 6.5, 2]);
      assert.deepEqual([of(stocks, b).trades, of(stocks, b).gain_sum, of(stocks, b).alpha_n], [1, 2, 0]);
      assert.equal(of(settled, a).trades, 0, 'a settled league keeps its stored final board: nothing to fill');
      // The same as the rules count from the bets (the open one left out: a board marks it on top).
      const rules = { instruments: 'stocks' as const, min_closed_bets: 1, scoring: 'skill' as const };
      const counted = computeBoard(
        rules,
        { starts_at: start, ends_at: end },
        [a, b].map((user_id) => ({ user_id, left_at: null })),
        bets.filter((x) => x.status !== 'OPEN' && x.closed_at! <= end),
        end,
        new Map(),
      );
      const alice = counted.find((r) => r.user_id === a)!;
      assert.equal(alice.trades, of(stocks, a).trades);
      assert.equal(alice.cancels, of(stocks, a).cancels);
      // alphas: 10 − 1 = 9 (LONG, SPY +1 %) and −3.5 − 2 = −5.5 (SHORT, SPY −2 % is +2 for a SHORT)
      assert.ok(Math.abs(of(stocks, a).alpha_sum - 3.5) < 1e-9, String(of(stocks, a).alpha_sum));
      assert.ok(Math.abs(of(stocks, a).alpha_sq_sum - (81 + 30.25)) < 1e-9);
    } finally {
      await handle.close();
    }
  });
});
