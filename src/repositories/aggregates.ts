// The queries of recomputeAggregates (src/services/recompute-aggregates.ts):
// every aggregate table emptied and written again from the bets.
import type { Db } from '../db/database.js';
import type { BetRow, UserDayStatsTable } from '../db/tables.js';

const INSERT_ROWS = 500;

/** SPEC's all-time leaderboard rows written again: live users with a CLOSED bet, their gains summed and counted. */
export async function rewriteLeaderboard(db: Db): Promise<void> {
  await db.deleteFrom('leaderboard').execute();
  await db
    .insertInto('leaderboard')
    .columns(['user_id', 'total_score', 'total_trades'])
    .expression(
      db
        .selectFrom('bets')
        .innerJoin('users', 'users.id', 'bets.user_id')
        .select((eb) => [
          'bets.user_id',
          eb.fn.coalesce(eb.fn.sum<number>('bets.percentage_gain'), eb.lit(0)).as('total_score'),
          eb.fn.countAll<number>().as('total_trades'),
        ])
        .where('bets.status', '=', 'CLOSED')
        .where('users.deleted_at', 'is', null)
        .groupBy('bets.user_id'),
    )
    .execute();
}

export type ClosedBetFigures = Pick<
  BetRow,
  'id' | 'user_id' | 'direction' | 'percentage_gain' | 'closed_at' | 'opened_at' | 'benchmark_entry' | 'benchmark_exit'
>;

/** A page of CLOSED bets by id after a cursor, with what the aggregates count of them. */
export function pageOfClosedBets(db: Db, afterId: number, limit: number): Promise<ClosedBetFigures[]> {
  return db
    .selectFrom('bets')
    .select(['id', 'user_id', 'direction', 'percentage_gain', 'closed_at', 'opened_at', 'benchmark_entry', 'benchmark_exit'])
    .where('status', '=', 'CLOSED')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Replaces every user_day_stats row by `rows`. */
export async function rewriteDayStats(db: Db, rows: UserDayStatsTable[]): Promise<void> {
  await db.deleteFrom('user_day_stats').execute();
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    await db
      .insertInto('user_day_stats')
      .values(rows.slice(i, i + INSERT_ROWS))
      .execute();
  }
}
