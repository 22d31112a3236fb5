// Every aggregate kept beside the bets, recounted from the bets themselves:
// SPEC's leaderboard (each live user's CLOSED gains summed and counted), the
// ranked board (ranked gains only), and the per-user per-day rows the windows
// and rankings read (user_day_stats, raw and ranked sums) with the window sums
// made from them (user_window_stats). League tallies are
// not recounted here: a version-1 league counts raw gains, which the backfill
// never changes, and a version-2 league counts only bets opened after ranked
// scoring shipped, which the backfill never touches (docs/leagues.md). The
// aggregates are normally kept by the betChanged handlers, a close at a time
// (src/services/rankings.ts); this is for the rare job that changes bets
// wholesale (the commitment backfill, src/jobs/commitment-backfill.ts), run
// once in one transaction. An aggregate added later gets its recount here too,
// so such jobs recount everything at once.
import type { Db } from '../db/database.js';
import type { Insertable } from 'kysely';
import type { UserDayStatsTable } from '../db/tables.js';
import { utcDate } from '../domain/market-calendar.js';
import { alphaOf, rankedCount } from '../domain/rankings.js';
import { yieldToLoop } from '../lib/yield.js';
import {
  type ClosedBetFigures,
  clearDayStats,
  closedBetsOfUsers,
  insertDayStats,
  rewriteLeaderboard,
  userIdsAfter,
} from '../repositories/aggregates.js';
import { rebuildWindowTotals } from '../repositories/window-totals.js';

/** Users whose closed bets are read and counted at a time, day rows written a statement: the loop runs between (tests lower it). */
export const RECOUNT_SLICE = 2000;

/**
 * Recounts every aggregate from the bets; run it inside one transaction so
 * readers never see a half-made board. The work goes in slices with the event
 * loop running between them (on SQLite the transaction keeps the connection
 * meanwhile: other statements wait, the loop does not).
 */
export async function recomputeAggregates(db: Db, slice = RECOUNT_SLICE): Promise<void> {
  const o = { slice, between: yieldToLoop };
  await rewriteLeaderboard(db, 'raw', o);
  await rewriteLeaderboard(db, 'ranked', o);
  await recountDayStats(db, o);
  // The day rows' triggers kept the windows meanwhile; made again in one pass, they are exact sums.
  await rebuildWindowTotals(db);
}

/**
 * The day rows, a slice of users at a time: only that slice's bets and rows are held, where
 * holding every user's (a million bets make about as many rows) took a gigabyte.
 */
async function recountDayStats(db: Db, o: { slice: number; between: () => Promise<void> }): Promise<void> {
  await clearDayStats(db);
  for (let afterUser = -1; ; ) {
    const users = await userIdsAfter(db, afterUser, o.slice);
    if (users.length === 0) return;
    const lastUser = users[users.length - 1]!;
    await insertDayStats(db, dayRowsOf(await closedBetsOfUsers(db, afterUser, lastUser)), o);
    if (users.length < o.slice) return;
    afterUser = lastUser;
    await o.between();
  }
}

const num = (v: number | null) => (v === null ? null : Number(v));

/** The day rows as aggregateStatements (src/services/rankings.ts) adds them, one CLOSED bet at a time (its exit day, its gain, its alpha). */
type DayRow = Required<Insertable<UserDayStatsTable>>;

function dayRowsOf(bets: readonly ClosedBetFigures[]): DayRow[] {
  const rows = new Map<string, DayRow>();
  for (const bet of bets) {
    const gain = Number(bet.percentage_gain ?? 0);
    const day = utcDate(Number(bet.closed_at ?? bet.opened_at));
    const key = `${bet.user_id}|${day}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        user_id: Number(bet.user_id),
        day,
        trades: 0,
        score_sum: 0,
        wins: 0,
        alpha_count: 0,
        alpha_sum: 0,
        alpha_sq_sum: 0,
        ranked_trades: 0,
        ranked_score_sum: 0,
        ranked_wins: 0,
        ranked_alpha_count: 0,
        ranked_alpha_sum: 0,
        ranked_alpha_sq_sum: 0,
      };
      rows.set(key, row);
    }
    row.trades++;
    row.score_sum += gain;
    if (gain > 0) row.wins++;
    const alpha = alphaOf(bet.direction, gain, num(bet.benchmark_entry), num(bet.benchmark_exit));
    if (alpha !== null) {
      row.alpha_count++;
      row.alpha_sum += alpha;
      row.alpha_sq_sum += alpha * alpha;
    }
    const ranked = rankedCount({
      direction: bet.direction,
      percentage_gain: gain,
      benchmark_entry: num(bet.benchmark_entry),
      benchmark_exit: num(bet.benchmark_exit),
      ranked_gain: num(bet.ranked_gain),
      benchmark_committed: num(bet.benchmark_committed),
    });
    if (ranked) {
      row.ranked_trades++;
      row.ranked_score_sum += ranked.gain;
      if (ranked.gain > 0) row.ranked_wins++;
      if (ranked.alpha !== null) {
        row.ranked_alpha_count++;
        row.ranked_alpha_sum += ranked.alpha;
        row.ranked_alpha_sq_sum += ranked.alpha * ranked.alpha;
      }
    }
  }
  return [...rows.values()];
}
