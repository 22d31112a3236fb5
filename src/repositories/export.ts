import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';

/** One keyset page of a user's bets in id order: never an OFFSET scan, never the whole history at once. */
export async function betsPageAfter(db: Db, userId: number, afterId: number, size: number): Promise<BetRow[]> {
  return db.selectFrom('bets').selectAll().where('user_id', '=', userId).where('id', '>', afterId).orderBy('id').limit(size).execute();
}
