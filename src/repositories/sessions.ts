import type { Db } from '../db/database.js';
import type { SessionRow } from '../db/tables.js';

export async function insertSession(db: Db, s: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(s).execute();
}

export async function findLiveSession(db: Db, id: string, now: number): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
