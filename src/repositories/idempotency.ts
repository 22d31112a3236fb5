// Idempotency-Key rows (src/services/idempotency.ts decides what they mean).
import type { Db } from '../db/database.js';

export interface KeyOf {
  userId: number;
  key: string;
}

export interface IdempotencyRow {
  fingerprint: string;
  created_at: number;
  status: number | null;
  answer: string | null;
}

/** Inserts an in-flight claim; false when the user already has a row for this key. */
export async function insertClaim(db: Db, k: KeyOf, fingerprint: string, now: number): Promise<boolean> {
  const rows = await db
    .insertInto('idempotency_keys')
    .values({ user_id: k.userId, idem_key: k.key, fingerprint, created_at: now, status: null, answer: null })
    .onConflict((oc) => oc.columns(['user_id', 'idem_key']).doNothing())
    .returning('idem_key')
    .execute();
  return rows.length > 0;
}

export function findKey(db: Db, k: KeyOf): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'created_at', 'status', 'answer'])
    .where('user_id', '=', k.userId)
    .where('idem_key', '=', k.key)
    .executeTakeFirst();
}

/**
 * Claims anew a row that is free to take: expired, or in flight past its
 * lease. The row's old claim time must still be there, so of two requests
 * taking over one row only one does.
 */
export async function retakeClaim(db: Db, k: KeyOf, seenCreatedAt: number, fingerprint: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('idempotency_keys')
    .set({ fingerprint, created_at: now, status: null, answer: null })
    .where('user_id', '=', k.userId)
    .where('idem_key', '=', k.key)
    .where('created_at', '=', seenCreatedAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Stores the answer of the claim made at claimedAt (not of a later one that took the row over). */
export async function finishClaim(db: Db, k: KeyOf, claimedAt: number, status: number, answer: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, answer })
    .where('user_id', '=', k.userId)
    .where('idem_key', '=', k.key)
    .where('created_at', '=', claimedAt)
    .where('status', 'is', null)
    .execute();
}

/** Frees the key of the claim made at claimedAt, unless it has an answer or was taken over. */
export async function releaseClaim(db: Db, k: KeyOf, claimedAt: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', k.userId)
    .where('idem_key', '=', k.key)
    .where('created_at', '=', claimedAt)
    .where('status', 'is', null)
    .execute();
}

/**
 * The oldest keys claimed before `before`: `limit` of them, and the others of
 * the last one's instant (created_at's index finds the boundary). Returns how
 * many went; fewer than `limit`, none is left before `before`.
 */
export async function deleteKeysBefore(db: Db, before: number, limit: number): Promise<number> {
  const boundary = await db
    .selectFrom('idempotency_keys')
    .select('created_at')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(1)
    .offset(limit - 1)
    .executeTakeFirst();
  const upTo = boundary ? db.deleteFrom('idempotency_keys').where('created_at', '<=', boundary.created_at) : db.deleteFrom('idempotency_keys');
  const r = await upTo.where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
