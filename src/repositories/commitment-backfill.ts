// The queries of the commitment backfill (src/jobs/commitment-backfill.ts):
// the bets migration 0026 flagged, the decisions recorded on them, and the
// job's row in data_jobs.
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';

/** Flagged bets by id after a cursor (bets_backfill_idx holds exactly these). */
export function listFlaggedBets(db: Db, flag: string, afterId: number, limit: number): Promise<BetRow[]> {
  return db.selectFrom('bets').selectAll().where('unranked_reason', '=', flag).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

export async function anyFlaggedBet(db: Db, flag: string): Promise<boolean> {
  return (await db.selectFrom('bets').select('id').where('unranked_reason', '=', flag).limit(1).executeTakeFirst()) !== undefined;
}

/** Replaces a bet's flag by a reason (null: rankable as any bet); false when it no longer carries the flag. */
export async function replaceFlag(db: Db, id: number, flag: string, reason: string | null): Promise<boolean> {
  const r = await db.updateTable('bets').set({ unranked_reason: reason }).where('id', '=', id).where('unranked_reason', '=', flag).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Commits a flagged bet (and its ranked gain when it has finished) and clears its flag; undefined when it no longer carries it. */
export async function commitFlaggedBet(
  db: Db,
  id: number,
  flag: string,
  c: { price: number; benchmark: number | null; rankedGain: number | null },
): Promise<BetRow | undefined> {
  const [row] = await db
    .updateTable('bets')
    .set({ unranked_reason: null, committed_price: c.price, benchmark_committed: c.benchmark, ranked_gain: c.rankedGain })
    .where('id', '=', id)
    .where('unranked_reason', '=', flag)
    .returningAll()
    .execute();
  return row;
}

/** Whether a one-time data job is over (or unknown: nothing to do). */
export async function dataJobDone(db: Db, name: string): Promise<boolean> {
  const row = await db.selectFrom('data_jobs').select('done_at').where('name', '=', name).executeTakeFirst();
  return !row || row.done_at !== null;
}

export async function addDataJobProgress(db: Db, name: string, processed: number): Promise<void> {
  await db
    .updateTable('data_jobs')
    .set((eb) => ({ processed: eb('processed', '+', processed) }))
    .where('name', '=', name)
    .execute();
}

/** Marks a data job done; false when it already was (another instance finished it). */
export async function claimDataJobDone(db: Db, name: string, at: number): Promise<boolean> {
  const r = await db.updateTable('data_jobs').set({ done_at: at }).where('name', '=', name).where('done_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
