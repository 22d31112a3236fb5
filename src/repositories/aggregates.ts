// The queries of recomputeAggregates (src/services/recompute-aggregates.ts):
// every aggregate table emptied and written again from the bets.
import type { Db } from '../db/database.js';
import type { Insertable } from 'kysely';
import type { BetRow, UserDayStatsTable } from '../db/tables.js';

const INSERT_ROWS = 500;

/** How a rewrite goes in slices: rows (or users) a statement, and what it awaits between statements. */
export interface Slicing {
  slice: number;
  between: () => Promise<void>;
}

/**
 * An all-time board's rows written again: live users with a counted bet, its
 * gains summed and counted. SPEC's leaderboard counts every CLOSED bet's
 * percentage_gain; the ranked board every bet's ranked_gain where it has one.
 * One statement counts the bets of `slice` users (by id), so no statement
 * reads every bet.
 */
export async function rewriteLeaderboard(db: Db, board: 'raw' | 'ranked', o: Slicing): Promise<void> {
  const table = board === 'raw' ? 'leaderboard' : 'ranked_leaderboard';
  const gain = board === 'raw' ? 'bets.percentage_gain' : 'bets.ranked_gain';
  await db.deleteFrom(table).execute();
  for (let afterUser = -1; ; ) {
    const users = await userIdsAfter(db, afterUser, o.slice);
    if (users.length === 0) return;
    const lastUser = users[users.length - 1]!;
    let counted = db
      .selectFrom('bets')
      .innerJoin('users', 'users.id', 'bets.user_id')
      .select((eb) => [
        'bets.user_id',
        eb.fn.coalesce(eb.fn.sum<number>(gain), eb.lit(0)).as('total_score'),
        eb.fn.countAll<number>().as('total_trades'),
      ])
      .where('bets.status', '=', 'CLOSED')
      .where('users.deleted_at', 'is', null)
      .where('bets.user_id', '>', afterUser)
      .where('bets.user_id', '<=', lastUser)
      .groupBy('bets.user_id');
    if (board === 'ranked') counted = counted.where('bets.ranked_gain', 'is not', null);
    await db.insertInto(table).columns(['user_id', 'total_score', 'total_trades']).expression(counted).execute();
    if (users.length < o.slice) return;
    afterUser = lastUser;
    await o.between();
  }
}

export type ClosedBetFigures = Pick<
  BetRow,
  | 'id'
  | 'user_id'
  | 'direction'
  | 'percentage_gain'
  | 'closed_at'
  | 'opened_at'
  | 'benchmark_entry'
  | 'benchmark_exit'
  | 'ranked_gain'
  | 'benchmark_committed'
>;

/** Up to `limit` user ids after `afterUser`, in order: the slices of a recount. */
export async function userIdsAfter(db: Db, afterUser: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('users').select('id').where('id', '>', afterUser).orderBy('id').limit(limit).execute();
  return rows.map((r) => Number(r.id));
}

/** The CLOSED bets of the users with ids in (afterUser, lastUser], with what the aggregates count of them. */
export function closedBetsOfUsers(db: Db, afterUser: number, lastUser: number): Promise<ClosedBetFigures[]> {
  return db
    .selectFrom('bets')
    .select([
      'id',
      'user_id',
      'direction',
      'percentage_gain',
      'closed_at',
      'opened_at',
      'benchmark_entry',
      'benchmark_exit',
      'ranked_gain',
      'benchmark_committed',
    ])
    .where('status', '=', 'CLOSED')
    .where('user_id', '>', afterUser)
    .where('user_id', '<=', lastUser)
    .execute();
}

/** Removes every user_day_stats row (a recount writes them again, a slice of users at a time). */
export async function clearDayStats(db: Db): Promise<void> {
  await db.deleteFrom('user_day_stats').execute();
}

/** Adds day rows, at most 500 (or the slice) a statement. */
export async function insertDayStats(db: Db, rows: Array<Insertable<UserDayStatsTable>>, o: Slicing): Promise<void> {
  const chunk = Math.min(INSERT_ROWS, o.slice);
  for (let i = 0; i < rows.length; i += chunk) {
    if (i > 0) await o.between();
    await db
      .insertInto('user_day_stats')
      .values(rows.slice(i, i + chunk))
      .execute();
  }
}
