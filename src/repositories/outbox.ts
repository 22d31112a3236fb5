// The outbox worker's queries (src/jobs/outbox.ts): claim due rows of one
// channel under a lease, renew a lease, record each outcome. Every write to a
// claimed row names the claim token and requires the row still pending, so a
// worker whose lease ran out (and whose row another took) changes nothing.
import { sql } from 'kysely';
import { type Db, dialectOf } from '../db/database.js';
import type { ChatTransportName, NotificationRow, NotificationStatus } from '../db/tables.js';

/**
 * `status = PENDING` picks notifications_pending_idx (migration 0042): SQLite
 * uses a partial index only where it sees the WHERE implies the index's, which
 * a bound parameter never shows it.
 */
export const PENDING = sql.lit<NotificationStatus>('pending');

type Outcome = Partial<Pick<NotificationRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_error' | 'sent_at' | 'claimed_until' | 'claim_token'>>;

/**
 * Claims up to `limit` due rows of one channel for one worker until `until`.
 * On PostgreSQL rows another worker is claiming are skipped (FOR UPDATE SKIP
 * LOCKED), and a claimed row stays invisible to others until its claim expires.
 */
export async function claimDue(
  db: Db,
  channel: ChatTransportName,
  token: string,
  now: number,
  until: number,
  limit: number,
): Promise<NotificationRow[]> {
  const due = db
    .selectFrom('notifications')
    .select('id')
    .where('status', '=', PENDING)
    .where('transport', '=', channel)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  const rows = await db
    .updateTable('notifications')
    .set({ claim_token: token, claimed_until: until })
    .where('id', 'in', dialectOf(db) === 'postgres' ? due.forUpdate().skipLocked() : due)
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.id - b.id);
}

/** Extends a claim that is still this worker's (same token, still pending); false when another worker has taken the row. */
export async function renewClaim(db: Db, id: number, token: string, until: number): Promise<boolean> {
  const r = await db
    .updateTable('notifications')
    .set({ claimed_until: until })
    .where('id', '=', id)
    .where('claim_token', '=', token)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The rows with these ids, locked until the transaction ends (PostgreSQL), in id order. */
export async function lockNotifications(db: Db, ids: number[]): Promise<NotificationRow[]> {
  if (ids.length === 0) return [];
  const q = db.selectFrom('notifications').selectAll().where('id', 'in', ids).orderBy('id');
  return (dialectOf(db) === 'postgres' ? q.forUpdate() : q).execute();
}

/** Records what became of a claimed row, if the claim is still this worker's. */
export async function updateClaimed(db: Db, id: number, token: string, set: Outcome): Promise<void> {
  await db.updateTable('notifications').set(set).where('id', '=', id).where('claim_token', '=', token).where('status', '=', 'pending').execute();
}

/** Records rows as sent (whatever became of them meanwhile: a row dropped while it was on its way did go out). */
export async function markSent(db: Db, ids: number[], now: number): Promise<void> {
  await db
    .updateTable('notifications')
    .set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), claim_token: null, claimed_until: null, last_error: null }))
    .where('id', 'in', ids)
    .execute();
}
