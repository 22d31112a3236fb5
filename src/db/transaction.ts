// Write transactions. The caller owns the transaction and passes it to the
// data-access functions, which take the database or transaction first.
import type { Db, Dialect } from './database.js';
import { groupCommitterFor } from './group-commit.js';
import { sqliteHandleOf, whileHolding } from './sqlite-direct.js';

/**
 * Runs fn in a write transaction and resolves once it is durably committed.
 * On SQLite it runs inside a group commit (src/db/group-commit.ts): BEGIN
 * IMMEDIATE takes the write lock up front so a read-then-write (capacity
 * checks) cannot be interleaved by another process, fn gets its own savepoint,
 * and transactions arriving together share one commit and one fsync. fn must
 * not start another transaction. On PostgreSQL it is a normal transaction:
 * callers lock the rows they decide on (lockUser).
 */
export async function withTransaction<T>(db: Db, dialect: Dialect, fn: (trx: Db) => Promise<T>): Promise<T> {
  const committed: Array<() => void> = [];
  const undone: Array<() => void> = [];
  const runUndone = () => {
    for (const work of undone.splice(0)) work();
  };
  const handle = dialect === 'sqlite' ? sqliteHandleOf(db) : undefined;
  const run = (trx: Db) => {
    // SQLite's group commit hands every member the same connection: each
    // gets a handle of its own, so its afterCommit work stays its own.
    const own = dialect === 'postgres' ? trx : trx.withoutPlugins();
    afterCommitWork.set(own, committed);
    rollbackWork.set(own, undone);
    // The member holds the connection while it runs: its prepared queries may skip Kysely's executor.
    return handle ? whileHolding(own, handle, () => fn(own)) : fn(own);
  };
  let result: T;
  try {
    result = dialect === 'postgres' ? await db.transaction().execute(run) : await groupCommitterFor(db).run(run, runUndone);
  } catch (err) {
    // PostgreSQL: the transaction has rolled back by now (SQLite's group commit has already called it).
    runUndone();
    throw err;
  }
  for (const work of committed) work();
  return result;
}

const afterCommitWork = new WeakMap<Db, Array<() => void>>();
const rollbackWork = new WeakMap<Db, Array<() => void>>();

/**
 * Runs work when trx's writes are undone (never when it commits): on
 * SQLite synchronously at the rollback, before any other transaction runs
 * on the connection. For memory that mirrors writes made inside trx
 * (record chain heads). Nothing to do outside a transaction of
 * withTransaction: there every write is committed at once.
 */
export function onRollback(trx: Db, work: () => void): void {
  rollbackWork.get(trx)?.push(work);
}

/**
 * Runs work once trx has committed (never when it rolls back); at once when
 * trx is not a transaction of withTransaction. For what other requests must
 * not see before the data does: dropping cached answers.
 */
export function afterCommit(trx: Db, work: () => void): void {
  const list = afterCommitWork.get(trx);
  if (list) list.push(work);
  else work();
}

/**
 * Locks a user's row until the transaction ends (PostgreSQL); SQLite's
 * immediate transaction already holds the write lock. FOR NO KEY UPDATE, not
 * FOR UPDATE: inserting a row that references the user (a bet, a follow)
 * takes FOR KEY SHARE on it, which NO KEY UPDATE does not conflict with, so
 * insert-then-lock in two transactions cannot deadlock.
 */
export async function lockUser(trx: Db, dialect: Dialect, userId: number): Promise<boolean> {
  const q = trx.selectFrom('users').select('id').where('id', '=', userId);
  const row = await (dialect === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
  return row !== undefined;
}

/**
 * Holds a user's row lock until the transaction ends, where there is one to
 * take: PostgreSQL (as lockUser). On SQLite the immediate transaction already
 * holds the database's write lock, so nothing is read.
 */
export async function holdUserLock(trx: Db, dialect: Dialect, userId: number): Promise<void> {
  if (dialect === 'postgres') await lockUser(trx, dialect, userId);
}
