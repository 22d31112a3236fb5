// A row's few values as the text of one JSON array, built by the database:
// a single value a row instead of one a column, which on SQLite is most of
// what reading a page of 100 rows costs (better-sqlite3 sets each column of
// each row as a property of a new object).
import { type Expression, type RawBuilder, sql } from 'kysely';
import { type Db, dialectOf } from './database.js';

export function jsonArrayText(db: Db, values: readonly Expression<unknown>[]): RawBuilder<string> {
  const list = sql.join(values);
  return dialectOf(db) === 'sqlite' ? sql<string>`json_array(${list})` : sql<string>`json_build_array(${list})::text`;
}
