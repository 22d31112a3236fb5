// Dialect helpers for migrations. Migrations see only Kysely<unknown>, never
// the application's table types, so they stay valid as the app evolves.
import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-incrementing integer primary key on both dialects. */
export function withId<T extends string>(db: Kysely<unknown>, t: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return isPostgres(db) ? t.addColumn('id', 'bigserial', (c) => c.primaryKey()) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch-millisecond timestamps need 64 bits. */
export const ms = 'bigint' as const;
/** References to ids created by withId. */
export const ref = 'bigint' as const;

/** A CHECK expression limiting a text column to fixed values. */
export function sqlIn(column: string, values: string[]) {
  return sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);
}
