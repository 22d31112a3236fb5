// What each user wants by email (no row: the defaults) and the digest queue.
import { type Db, dialectOf } from '../db/database.js';
import type { NoticeSettingsTable } from '../db/tables.js';

export type NoticeSettingsRow = NoticeSettingsTable;

export function findNoticeSettings(db: Db, userId: number): Promise<NoticeSettingsRow | undefined> {
  return db.selectFrom('notice_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function saveNoticeSettings(db: Db, row: NoticeSettingsRow): Promise<void> {
  const { user_id, ...rest } = row;
  await db
    .insertInto('notice_settings')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
    .execute();
}

/** Turns email notices off (unsubscribe); true when the user had them on. */
export async function turnEmailNoticesOff(db: Db, userId: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('notice_settings')
    .set({ email_notices: 'off', next_digest_at: null, digest_since: null, updated_at: now })
    .where('user_id', '=', userId)
    .where('email_notices', '!=', 'off')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Digests due now, oldest first; on PostgreSQL rows another instance is taking are skipped. */
export async function dueDigests(db: Db, now: number, limit: number): Promise<NoticeSettingsRow[]> {
  const q = db
    .selectFrom('notice_settings')
    .selectAll()
    .where('email_notices', '=', 'digest')
    .where('next_digest_at', '<=', now)
    .orderBy('next_digest_at')
    .limit(limit);
  return (dialectOf(db) === 'postgres' ? q.forUpdate().skipLocked() : q).execute();
}

/** Moves a digest on to its next instant; false when another worker already did (the row changed). */
export async function advanceDigest(db: Db, userId: number, dueAt: number, next: number): Promise<boolean> {
  const r = await db
    .updateTable('notice_settings')
    .set({ next_digest_at: next, digest_since: dueAt })
    .where('user_id', '=', userId)
    .where('next_digest_at', '=', dueAt)
    .where('email_notices', '=', 'digest')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The verified address of a user whose email notices are in this mode, if so. */
export async function emailNoticeAddress(db: Db, userId: number, mode: 'each' | 'digest'): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('email_verified', (j) => j.onRef('email_verified.user_id', '=', 'users.id').onRef('email_verified.email', '=', 'users.email'))
    .innerJoin('notice_settings', 'notice_settings.user_id', 'users.id')
    .select('users.email')
    .where('users.id', '=', userId)
    .where('users.deleted_at', 'is', null)
    .where('notice_settings.email_notices', '=', mode)
    .executeTakeFirst();
  return row?.email;
}
