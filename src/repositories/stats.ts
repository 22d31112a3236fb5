import type { Db } from '../db/database.js';

/** A user's CLOSED bets in exit order, with the ranked gain (null: not ranked). */
export async function closedBetsOf(db: Db, userId: number) {
  return closedBetsQuery(db, userId).execute();
}

/** closedBetsOf's read: one range of bets_user_closed_idx, which holds every column it reads (migration 0036). */
export function closedBetsQuery(db: Db, userId: number) {
  return db
    .selectFrom('bets')
    .select(['percentage_gain', 'ranked_gain', 'opened_at', 'closed_at'])
    .where('user_id', '=', userId)
    .where('status', '=', 'CLOSED')
    .orderBy('closed_at')
    .orderBy('id');
}

export async function statusCounts(db: Db, userId: number): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('bets')
    .select(['status'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Bets other users opened as tails of this user's bets, with their outcome.
 * The tails are found through bets_source_idx, which holds only the bets that
 * copy one (migration 0041): hence the condition that they do.
 */
export async function tailsOf(db: Db, userId: number) {
  return db
    .selectFrom('bets as leader')
    .innerJoin('bets as tail', 'tail.source_bet_id', 'leader.id')
    .select(['tail.status', 'tail.percentage_gain'])
    .where('leader.user_id', '=', userId)
    .where('tail.source_kind', '=', 'tail')
    .where('tail.source_bet_id', 'is not', null)
    .execute();
}
