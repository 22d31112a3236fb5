// A list of ids bound as one value (a JSON array on SQLite, an array on
// PostgreSQL), so that a statement over a list of any length is compiled once
// (src/db/prepared.ts): an `in` list would be built and compiled by Kysely on
// every call, a cost a page of 100 bets pays on each request.
import { type Expression, sql } from 'kysely';
import { type Db, dialectOf } from './database.js';

/** The value to bind for `ids` (boundIdsContain's `ids`). */
export type BoundIds = string | number[];

export function boundIds(db: Db, ids: readonly number[]): BoundIds {
  return dialectOf(db) === 'sqlite' ? JSON.stringify(ids) : [...ids];
}

/** `column` is one of the bound ids. */
export function boundIdsContain(db: Db, column: string, ids: BoundIds): Expression<boolean> {
  const ref = sql.ref(column);
  return dialectOf(db) === 'sqlite' ? sql<boolean>`${ref} in (select value from json_each(${ids}))` : sql<boolean>`${ref} = any(${ids}::bigint[])`;
}
