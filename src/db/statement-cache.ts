// Kysely's SQLite driver prepares every query anew; preparing costs as much as
// running a short query. The same few hundred SQL texts repeat forever, so the
// prepared statements are kept (least recently used dropped past a bound).
// Safe because Kysely runs one query at a time on SQLite's single connection,
// and better-sqlite3 re-prepares a statement itself after a schema change.
//
// Rows are read as arrays and made into objects here: better-sqlite3 builds
// each row object through V8's C++ API, a property at a time, which costs
// twice what reading the values does (a page of 100 bets of 23 columns: about
// 450 µs as objects, 220 µs as arrays made into objects by a compiled literal).
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';

export const STATEMENT_CACHE_SIZE = 500;

type Row = Record<string, unknown>;
type MakeRow = (values: unknown[]) => Row;

/** Statements that can change a table's columns: every reader compiled before one reads its columns again. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/** A function making a row object from its values, the keys in a fixed order (one hidden class); null when names repeat or need care. */
export function rowMaker(names: readonly string[]): MakeRow | null {
  if (new Set(names).size !== names.length || names.includes('__proto__')) return null;
  // The source holds only JSON-quoted column names and indexes.
  return new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as MakeRow;
}

function objectRows(stmt: SQLite.Statement, schema: { generation: number }): SqliteStatement {
  let generation = -1;
  let names: string[] = [];
  let make: MakeRow | null = null;
  const maker = (width: number): MakeRow | null => {
    if (generation !== schema.generation || width !== names.length) {
      generation = schema.generation;
      names = stmt.columns().map((c) => c.name);
      make = rowMaker(names);
    }
    return make;
  };
  const toObjects = (rows: unknown[][]): Row[] => {
    if (rows.length === 0) return rows as unknown as Row[];
    const m = maker(rows[0]!.length);
    if (!m) return rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]])));
    const out = new Array<Row>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = m(rows[i]!);
    return out;
  };
  stmt.raw(true);
  return {
    reader: true,
    all: (parameters) => toObjects(stmt.all(parameters) as unknown[][]),
    run: (parameters) => stmt.run(parameters),
    *iterate(parameters) {
      for (const values of stmt.iterate(parameters) as IterableIterator<unknown[]>) yield toObjects([values])[0];
    },
  };
}

/** Counts schema changes; connections to one file share one, so a reader rereads its columns after the writer's change. */
export interface SchemaGeneration {
  generation: number;
}

export function withStatementCache(
  sqlite: SQLite.Database,
  schema: SchemaGeneration = { generation: 0 },
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const cache = new LRUCache<string, SqliteStatement>({ max: size });
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (text: string) => {
      let stmt = cache.get(text);
      if (!stmt) {
        const prepared = sqlite.prepare(text);
        if (SCHEMA_CHANGE.test(text)) schema.generation++;
        stmt = prepared.reader ? objectRows(prepared, schema) : (prepared as unknown as SqliteStatement);
        cache.set(text, stmt);
      } else if (SCHEMA_CHANGE.test(text)) schema.generation++;
      return stmt;
    },
  };
}
