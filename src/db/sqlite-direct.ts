// Inside a group-commit batch SQLite's one connection belongs to the batch
// (it holds Kysely's connection until its COMMIT), and better-sqlite3 runs
// each statement synchronously. There the batch's own statements and its
// members' prepared queries (src/db/prepared.ts) run on the handle directly:
// Kysely's executor (connection lock, promise chain, result objects) costs
// more than most of those statements do.
import type { SqliteDatabase } from 'kysely';
import type { Db } from './database.js';

/** The statement-cached better-sqlite3 handle behind each SQLite database. */
const handles = new WeakMap<Db, SqliteDatabase>();
/** Transaction handles whose transaction holds the connection right now. */
const holders = new WeakMap<Db, SqliteDatabase>();

export function registerSqliteHandle(db: Db, handle: SqliteDatabase): void {
  handles.set(db, handle);
}

export function sqliteHandleOf(db: Db): SqliteDatabase | undefined {
  return handles.get(db);
}

/** Runs fn with trx marked as holding the connection of `handle` (marked until fn settles). */
export async function whileHolding<T>(trx: Db, handle: SqliteDatabase, fn: () => Promise<T>): Promise<T> {
  holders.set(trx, handle);
  try {
    return await fn();
  } finally {
    holders.delete(trx);
  }
}

/** The handle to run on directly when trx holds the connection; undefined otherwise (use Kysely). */
export function heldHandle(trx: Db): SqliteDatabase | undefined {
  return holders.get(trx);
}

/** Runs one statement on the handle: a reader's rows, or none. */
export function runOn<R>(handle: SqliteDatabase, sql: string, params: readonly unknown[]): R[] {
  const stmt = handle.prepare(sql);
  if (stmt.reader) return stmt.all(params) as R[];
  stmt.run(params);
  return [];
}
