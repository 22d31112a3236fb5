import { type Db, dialectOf } from '../db/database.js';
import type { NewUser, UserRow } from '../db/tables.js';
import { prepared } from '../db/prepared.js';
import { isPossibleId } from '../domain/ids.js';
import { type LastEntry, chainHeadOf, withChainHead } from './record.js';

export async function insertUser(db: Db, user: NewUser): Promise<number> {
  const row = await db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

// Read by every write (capacities): prepared (src/db/prepared.ts).
const userByIdQuery = prepared((db, p: { id: number }) => db.selectFrom('users').selectAll().where('id', '=', p.id).where('deleted_at', 'is', null));

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  if (!isPossibleId(id)) return undefined;
  return (await userByIdQuery(db, { id }))[0];
}

/** Which of a registration's unique values an account (live or deleted) already holds: the username first. */
export async function takenIdentity(db: Db, usernameLower: string, email: string): Promise<'username' | 'email' | null> {
  const byName = await db.selectFrom('users').select('id').where('username_lower', '=', usernameLower).executeTakeFirst();
  if (byName) return 'username';
  const byEmail = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  return byEmail ? 'email' : null;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function updatePasswordHash(db: Db, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
}

/** Replaces the hash only while it is still `expected`: a password changed meanwhile is kept. */
export async function replacePasswordHash(db: Db, id: number, expected: string, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).where('password_hash', '=', expected).execute();
}

const planHolderQuery = prepared((db, p: { userId: number }) =>
  db.selectFrom('users').select(['username', 'extra_bets', 'extra_slots']).where('users.id', '=', p.userId).where('users.deleted_at', 'is', null),
);
const lockedPlanHolderQuery = prepared((db, p: { userId: number }) =>
  db
    .selectFrom('users')
    .select(['username', 'extra_bets', 'extra_slots'])
    .where('users.id', '=', p.userId)
    .where('users.deleted_at', 'is', null)
    .forNoKeyUpdate(),
);
// An opening's lock statement also reads the chain head its record entry is built on (lockOwnerReadingHead explains why it may be out of date).
const lockedPlanHolderHeadQuery = prepared((db, p: { userId: number }) =>
  withChainHead(
    db.selectFrom('users').select(['username', 'extra_bets', 'extra_slots']).where('users.id', '=', p.userId).where('users.deleted_at', 'is', null),
  ).forNoKeyUpdate('users'),
);

export interface PlanHolder {
  username: string;
  extra_bets: number;
  extra_slots: number;
  /** PostgreSQL: the user's chain head, read in the lock statement (src/repositories/record.ts lockOwnerReadingHead). */
  chain?: { head: LastEntry | undefined };
}

/**
 * A live user's name and plan extras, read with the user's row lock held to
 * the end of the transaction on PostgreSQL (one statement for both), so this
 * user's capacity-bound writes (openings, follows) run one after another. With
 * chainHead (an opening, which appends to the user's record) the same
 * statement reads the chain head too. On SQLite the immediate transaction
 * already holds the database's write lock. Undefined for a missing or deleted user.
 */
export async function lockPlanHolder(db: Db, userId: number, opts: { chainHead?: boolean } = {}): Promise<PlanHolder | undefined> {
  if (!isPossibleId(userId)) return undefined;
  if (dialectOf(db) !== 'postgres') return (await planHolderQuery(db, { userId }))[0];
  if (!opts.chainHead) return (await lockedPlanHolderQuery(db, { userId }))[0];
  const [row] = await lockedPlanHolderHeadQuery(db, { userId });
  return row && { username: row.username, extra_bets: row.extra_bets, extra_slots: row.extra_slots, chain: { head: chainHeadOf(row) } };
}
