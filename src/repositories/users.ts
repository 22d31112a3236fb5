import type { Db } from '../db/database.js';
import type { NewUser, UserRow } from '../db/tables.js';
import { prepared } from '../db/prepared.js';
import { isPossibleId } from '../domain/ids.js';

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

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function updatePasswordHash(db: Db, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
}
