// One-time email tokens (only their SHA-256 stored) and verified addresses.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { EmailTokensTable } from '../db/tables.js';

export type TokenPurpose = EmailTokensTable['purpose'];

export async function insertEmailToken(
  db: Db,
  t: { hash: string; userId: number; purpose: TokenPurpose; email: string; now: number; ttlMs: number },
): Promise<void> {
  await db
    .insertInto('email_tokens')
    .values({
      token_hash: t.hash,
      user_id: t.userId,
      purpose: t.purpose,
      email: t.email,
      created_at: t.now,
      expires_at: t.now + t.ttlMs,
      used_at: null,
    })
    .execute();
}

/** A new link of a purpose replaces the unused earlier ones (and expired ones are pruned). */
export async function dropOpenTokens(db: Db, userId: number, purpose: TokenPurpose): Promise<void> {
  await db.deleteFrom('email_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

/**
 * Uses a token once: marks it used if it exists for this purpose, is unused
 * and unexpired, in one conditional statement (two concurrent uses: one wins).
 */
export async function useEmailToken(
  db: Db,
  hash: string,
  purpose: TokenPurpose,
  now: number,
): Promise<{ user_id: number; email: string } | undefined> {
  const row = await db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'email'])
    .executeTakeFirst();
  return row ? { user_id: Number(row.user_id), email: row.email } : undefined;
}

export async function markVerified(db: Db, userId: number, email: string, now: number): Promise<void> {
  await db
    .insertInto('email_verified')
    .values({ user_id: userId, email, verified_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ email, verified_at: now }))
    .execute();
}

/** The account's address, and whether that very address was verified. */
export async function findEmailState(db: Db, userId: number): Promise<{ email: string; verified: boolean } | undefined> {
  const row = await db
    .selectFrom('users as u')
    .leftJoin('email_verified as v', (j) => j.onRef('v.user_id', '=', 'u.id').onRef('v.email', '=', 'u.email'))
    .select(['u.email', sql<number | null>`v.verified_at`.as('verified_at')])
    .where('u.id', '=', userId)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? { email: row.email, verified: row.verified_at !== null } : undefined;
}

/** The pending change of address, if one was asked for and is still open. */
export async function findPendingChange(db: Db, userId: number, now: number): Promise<string | null> {
  const row = await db
    .selectFrom('email_tokens')
    .select('email')
    .where('user_id', '=', userId)
    .where('purpose', '=', 'change')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row?.email ?? null;
}

/** Whether any account (live or deleted) holds this address. */
export async function emailTaken(db: Db, email: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) !== undefined;
}

/** A deleted account keeps no address, token, email choice or stored notice (its chat rows go in services/chat.ts). */
export async function forgetEmailOf(trx: Db, userId: number): Promise<void> {
  for (const table of ['email_tokens', 'email_verified', 'notice_settings', 'user_notices', 'notice_reads'] as const) {
    await trx.deleteFrom(table).where('user_id', '=', userId).execute();
  }
}
