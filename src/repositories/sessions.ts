import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { SessionRow } from '../db/tables.js';

export async function insertSession(db: Db, s: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(s).execute();
}

// Every request with a session runs this lookup: prepared (src/db/prepared.ts).
const liveSessionQuery = prepared((db, p: { id: string; now: number }) =>
  db.selectFrom('sessions').selectAll().where('id', '=', p.id).where('expires_at', '>', p.now),
);

export async function findLiveSession(db: Db, id: string, now: number): Promise<SessionRow | undefined> {
  return (await liveSessionQuery(db, { id, now }))[0];
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
