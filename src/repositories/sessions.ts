import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import type { SessionRow } from '../db/tables.js';

export async function insertSession(db: Db, s: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(s).execute();
}

export function liveSessionQuery(db: Db, id: string, now: number) {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('expires_at', '>', now);
}

// Every request with a session runs this lookup: it is compiled once per
// database and run with each request's values (parameters in the order the
// query names them: id, then now), skipping Kysely's build and compile.
const compiledLookup = new WeakMap<Db, CompiledQuery<SessionRow>>();

export async function findLiveSession(db: Db, id: string, now: number): Promise<SessionRow | undefined> {
  let compiled = compiledLookup.get(db);
  if (!compiled) {
    compiled = liveSessionQuery(db, '', 0).compile();
    compiledLookup.set(db, compiled);
  }
  const { rows } = await db.executeQuery<SessionRow>(CompiledQuery.raw(compiled.sql, [id, now]));
  return rows[0];
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
