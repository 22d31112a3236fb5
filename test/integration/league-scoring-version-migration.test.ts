// 0024_league_scoring_version: a league already started when it runs keeps
// raw gains (version 1, its tallies untouched); one not yet started scores
// ranked gains (version 2), its tallies recounted by them; a league created
// after gets 2. Down drops the columns and recounts version-2 tallies raw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/database.js';
import { computeBoard, type LeagueBet } from '../../src/domain/leagues.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';

const DAY = 86_400_000;
const MIN = 60_000;

forEachDialect('0024_league_scoring_version', (dialect) => {
  test('started leagues get 1 and keep their tallies; leagues not started get 2 with ranked tallies; new ones 2; down recounts raw', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0022_committed_prices');
      const { db, insertUser: user } = migrationFixture(handle);
      const a = await user('alice');
      const b = await user('bob');
      // The migration reads the real clock: one league started a day ago, one starting in a day (bets in its window are future-dated).
      const now = Date.now();
      const league = async (name: string, starts: number, ends: number) =>
        Number(
          (
            await db
              .insertInto('leagues')
              .values({
                owner_id: a,
                name,
                description: '',
                visibility: 'private',
                invite_code: `CODE${name}`.toUpperCase(),
                starts_at: starts,
                ends_at: ends,
                member_limit: 10,
                instruments: 'all',
                min_closed_bets: 1,
                scoring: 'gain',
                created_at: 0,
              })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      const running = await league('running', now - DAY, now + DAY);
      const start = now + DAY;
      const end = now + 3 * DAY;
      const upcoming = await league('upcoming', start, end);
      for (const l of [running, upcoming]) {
        await db
          .insertInto('league_members')
          .values([a, b].map((user_id) => ({ league_id: l, user_id, joined_at: 0, left_at: null, daily_standing: 1 })))
          .execute();
      }
      // The running league's tally as the app kept it: the migration must leave it alone.
      await db.updateTable('league_members').set({ trades: 3, gain_sum: 7 }).where('league_id', '=', running).where('user_id', '=', a).execute();

      const bets: LeagueBet[] = [];
      let id = 0;
      const bet = (userId: number, over: Partial<LeagueBet>) => {
        bets.push({
          id: ++id,
          user_id: userId,
          ticker: 'AAPL',
          direction: 'LONG',
          status: 'CLOSED',
          entry_price: 100,
          exit_price: 110,
          percentage_gain: 10,
          opened_at: start + 1000,
          closed_at: start + 10 * MIN,
          benchmark_entry: 500,
          benchmark_exit: 505,
          committed_price: null,
          benchmark_committed: null,
          ranked_gain: null,
          unranked_reason: null,
          ...over,
        });
      };
      // Ranked: committed at 105.77 (ranked +4 %), the benchmark from 500 to 505 (+1 %): alpha 3.
      bet(a, { committed_price: 105.77, benchmark_committed: 500, ranked_gain: 4 });
      // Closed inside its cancel window: an early close, never scored (raw +5).
      bet(a, { closed_at: start + 1000 + MIN, percentage_gain: 5, exit_price: 105 });
      bet(a, { status: 'CANCELLED', percentage_gain: 0, exit_price: 100 });
      bet(a, { status: 'OPEN', closed_at: null, percentage_gain: null, exit_price: null, benchmark_exit: null, committed_price: 101 });
      bet(b, { direction: 'SHORT', percentage_gain: -10, committed_price: 108, ranked_gain: -2, benchmark_entry: null, benchmark_exit: null });
      await db
        .insertInto('bets')
        .values(bets.map(({ id: _id, ...r }) => ({ ...r, last_event_at: r.closed_at ?? r.opened_at })))
        .execute();

      await migrateToLatest(handle);
      const versions = await handle.db.selectFrom('leagues').select(['id', 'scoring_version']).orderBy('id').execute();
      assert.deepEqual(
        versions.map((l) => [Number(l.id), Number(l.scoring_version)]),
        [
          [running, 1],
          [upcoming, 2],
        ],
      );
      const members = async () =>
        handle.db
          .selectFrom('league_members')
          .select(['league_id', 'user_id', 'trades', 'cancels', 'early_closes', 'gain_sum', 'alpha_n', 'alpha_sum'])
          .execute();
      const rows = await members();
      const of = (l: number, u: number) => rows.find((r) => Number(r.league_id) === l && Number(r.user_id) === u)!;
      assert.deepEqual([of(running, a).trades, of(running, a).gain_sum, of(running, a).early_closes], [3, 7, 0], 'a started league keeps its tally');
      assert.deepEqual(
        [of(upcoming, a).trades, of(upcoming, a).cancels, of(upcoming, a).early_closes, of(upcoming, a).gain_sum, of(upcoming, a).alpha_n],
        [1, 1, 1, 4, 1],
      );
      assert.ok(Math.abs(of(upcoming, a).alpha_sum - 3) < 1e-9, String(of(upcoming, a).alpha_sum));
      assert.deepEqual([of(upcoming, b).trades, of(upcoming, b).gain_sum, of(upcoming, b).alpha_n], [1, -2, 0]);
      // The same as the version-2 rules count from the bets (the open one left out: a board marks it on top).
      const counted = computeBoard(
        { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
        { starts_at: start, ends_at: end },
        [a, b].map((user_id) => ({ user_id, left_at: null })),
        bets.filter((x) => x.status !== 'OPEN'),
        end,
        new Map(),
        2,
      );
      for (const u of [a, b]) {
        const r = counted.find((x) => x.user_id === u)!;
        assert.deepEqual(
          [r.trades, r.cancels, r.early_closes, r.score],
          [of(upcoming, u).trades, of(upcoming, u).cancels, of(upcoming, u).early_closes, of(upcoming, u).gain_sum],
        );
      }
      // A league inserted after the migration without a version scores ranked gains.
      const later = await league('later', now + DAY, now + 2 * DAY);
      assert.equal(
        Number((await handle.db.selectFrom('leagues').select('scoring_version').where('id', '=', later).executeTakeFirstOrThrow()).scoring_version),
        2,
      );

      // Down: the columns go, and the version-2 league's tally is raw again (every close's entry-to-exit gain).
      await migrateTestDatabaseTo(handle, '0022_committed_prices');
      const raw = await db
        .selectFrom('league_members')
        .selectAll()
        .where('league_id', '=', upcoming)
        .where('user_id', '=', a)
        .executeTakeFirstOrThrow();
      assert.equal('early_closes' in raw, false);
      assert.deepEqual([Number(raw.trades), Number(raw.cancels), Number(raw.gain_sum)], [2, 1, 15]);
      const leagueRow = await db.selectFrom('leagues').selectAll().where('id', '=', running).executeTakeFirstOrThrow();
      assert.equal('scoring_version' in leagueRow, false);
    } finally {
      await handle.close();
    }
  });
});
