// Queries on the write path run thousands of times a second, and Kysely can
// spend more time building and compiling one than SQLite spends running it.
// A prepared query is built and compiled once per dialect with named
// placeholders, then run through Kysely's executor with each call's values
// bound in their places.
import { type Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

const SLOT = '\u0000slot:';

type Slot = { name: string } | { constant: unknown };

interface Compiled {
  sql: string;
  slots: Slot[];
}

/**
 * Builds a query once per dialect. `build` receives placeholders for the named
 * values: use them only where Kysely binds a parameter (inserted and updated
 * values, comparisons with `=`, `<`, …), never where the value's kind changes
 * the SQL (`is null`, `in` lists, identifiers). Every other value in the
 * query stays as built. A value left undefined at run time is an error: pass
 * null to bind NULL.
 */
export function prepared<P extends object, R>(build: (db: Db, values: P) => Compilable<R>): Prepared<P, R> {
  // Keyed by the dialect's adapter class: the same SQL serves every database of one dialect.
  const byDialect = new Map<unknown, Compiled>();
  const statement = (db: Db, values: Bound<P>): CompiledQuery<R> => {
    const executor = db.getExecutor();
    // A plugin transforms each query as it is built (the tests' query capture
    // is one): with plugins the query is built for this call, as usual.
    if (executor.plugins.length > 0) return build(db, values as P).compile();
    const dialect = executor.adapter.constructor;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      compiled = compile(db, build);
      byDialect.set(dialect, compiled);
    }
    const params = compiled.slots.map((s) => ('name' in s ? boundValue(values, s.name) : s.constant));
    return CompiledQuery.raw(compiled.sql, params) as CompiledQuery<R>;
  };
  const run = async (db: Db, values: Bound<P>) => (await db.executeQuery<R>(statement(db, values))).rows;
  return Object.assign(run, { statement });
}

/** A prepared query: run it, or take its statement to send with others (src/db/together.ts). */
export interface Prepared<P, R> {
  (db: Db, values: Bound<P>): Promise<R[]>;
  statement(db: Db, values: Bound<P>): CompiledQuery<R>;
}

function compile<P extends object, R>(db: Db, build: (db: Db, values: P) => Compilable<R>): Compiled {
  const placeholders = new Proxy({} as P, { get: (_, name) => SLOT + String(name) });
  const query = build(db, placeholders).compile();
  const slots = query.parameters.map((v): Slot => (typeof v === 'string' && v.startsWith(SLOT) ? { name: v.slice(SLOT.length) } : { constant: v }));
  return { sql: query.sql, slots };
}

/** Every value a prepared query names, given: an optional column is passed as null, not left out. */
export type Bound<P> = { [K in keyof P]-?: Exclude<P[K], undefined> };

function boundValue(values: object, name: string): unknown {
  const bound = (values as Record<string, unknown>)[name];
  if (bound === undefined) throw new Error(`prepared query: no value for ${name} (pass null to bind NULL)`);
  return bound;
}
