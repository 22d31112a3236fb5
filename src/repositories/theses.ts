// Theses and their reports (migration 0029, docs/theses.md).
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { type BoundIds, boundIds, boundIdsContain } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';
import type { BetThesesTable } from '../db/tables.js';

export type ThesisRow = Omit<BetThesesTable, 'counted_reports'> & { counted_reports: number };

export async function insertThesis(db: Db, t: Omit<ThesisRow, 'hidden_at' | 'counted_reports'>): Promise<void> {
  await db
    .insertInto('bet_theses')
    .values({ ...t, hidden_at: null })
    .execute();
}

export async function findThesis(db: Db, betId: number): Promise<ThesisRow | undefined> {
  return db.selectFrom('bet_theses').selectAll().where('bet_id', '=', betId).executeTakeFirst();
}

/** The theses of a list of bets, the list bound as one value (src/db/id-list.ts). */
const thesesQuery = prepared((db, v: { ids: BoundIds }) =>
  db
    .selectFrom('bet_theses')
    .selectAll()
    .where(boundIdsContain(db, 'bet_id', v.ids)),
);

/** The theses of these bets, by bet id (bets without one are absent). */
export async function thesesOf(db: Db, betIds: readonly number[]): Promise<Map<number, ThesisRow>> {
  const out = new Map<number, ThesisRow>();
  if (betIds.length === 0) return out;
  for (const r of await thesesQuery(db, { ids: boundIds(db, betIds) })) out.set(Number(r.bet_id), r);
  return out;
}

/** The theses of one user's bets, by bet id: one statement, driven by the bets' user index, however many bets. */
export async function thesesOfUser(db: Db, userId: number): Promise<Map<number, ThesisRow>> {
  const rows = await db
    .selectFrom('bet_theses')
    .innerJoin('bets', 'bets.id', 'bet_theses.bet_id')
    .selectAll('bet_theses')
    .where('bets.user_id', '=', userId)
    .execute();
  return new Map(rows.map((r) => [Number(r.bet_id), r]));
}

/** Hides a thesis once; the first hiding's instant stays. */
export async function hideThesis(db: Db, betId: number, now: number): Promise<void> {
  await db.updateTable('bet_theses').set({ hidden_at: now }).where('bet_id', '=', betId).where('hidden_at', 'is', null).execute();
}

/**
 * Records one user's report; false when that user had reported this thesis
 * before (the key decides, so two racing requests add one report). A counted
 * report adds to the thesis's count in the same transaction.
 */
export async function addReport(db: Db, betId: number, reporterId: number, counted: boolean, now: number): Promise<boolean> {
  const r = await db
    .insertInto('thesis_reports')
    .values({ bet_id: betId, reporter_id: reporterId, counted: counted ? 1 : 0, reported_at: now })
    .onConflict((oc) => oc.columns(['bet_id', 'reporter_id']).doNothing())
    .executeTakeFirst();
  if (Number(r.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  if (counted)
    await db
      .updateTable('bet_theses')
      .set((eb) => ({ counted_reports: eb('counted_reports', '+', 1) }))
      .where('bet_id', '=', betId)
      .execute();
  return true;
}

/** What decides whether a user's report counts: a verified email (still the account's address) and the number of ranked bets. */
export async function reporterStanding(db: Db, userId: number): Promise<{ emailVerified: boolean; rankedBets: number }> {
  const verified = await db
    .selectFrom('users as u')
    .innerJoin('email_verified as v', (j) => j.onRef('v.user_id', '=', 'u.id').onRef('v.email', '=', 'u.email'))
    .select('u.id')
    .where('u.id', '=', userId)
    .executeTakeFirst();
  const ranked = await db
    .selectFrom('bets')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('ranked_gain', 'is not', null)
    .executeTakeFirstOrThrow();
  return { emailVerified: verified !== undefined, rankedBets: Number(ranked.n) };
}

/** An account's deletion removes the words it wrote (the record keeps only their hashes); reports on them go with them. */
export async function forgetTheses(db: Db, userId: number): Promise<void> {
  await db
    .deleteFrom('thesis_reports')
    .where('bet_id', 'in', db.selectFrom('bet_theses').select('bet_id').where('user_id', '=', userId))
    .execute();
  await db.deleteFrom('bet_theses').where('user_id', '=', userId).execute();
}
