// Opens the configured database (SQLite or PostgreSQL) behind one Kysely
// interface and applies the migrations.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { migrations } from './migrations/index.js';
import { SearchPathDialect } from './schema-introspector.js';
import { registerSqliteHandle } from './sqlite-direct.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** The underlying better-sqlite3 handle (SQLite only): backups, pragmas. */
  sqlite: SQLite.Database | null;
  /** The PostgreSQL schema in use when not the default (tests isolate themselves in one). */
  pgSchema: string | null;
  close(): Promise<void>;
}

// int8 (counts, bigint ids and timestamps) as JS numbers: every value we keep
// there is far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** SQLite's page cache per connection, in KiB (see openDatabase). */
export const SQLITE_CACHE_KIB = 32 * 1024;

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate themselves in a fresh schema). */
  pgSchema?: string;
  pgPoolSize?: number;
}

export function openDatabase(config: DatabaseConfig, opts: OpenOptions = {}): DatabaseHandle {
  if (config.dialect === 'sqlite') {
    if (config.path !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(config.path)), { recursive: true });
    const sqlite = new SQLite(config.path);
    // WAL for concurrent readers; FULL so an acknowledged commit survives power
    // loss (better-sqlite3 would otherwise run WAL at NORMAL).
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    // 32 MiB of page cache (SQLite's default is 2 MiB): a write touches a page in
    // each of the bets table's indexes, and a page read from the file is a system call.
    sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
    // Every group-commit member runs in a savepoint, and SQLite keeps a
    // savepoint's (and a multi-row statement's) undo pages in a temporary
    // file unless told otherwise: that file's writes were half of a write's cost.
    sqlite.pragma('temp_store = MEMORY');
    const handle = withStatementCache(sqlite);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: handle }) });
    registerSqliteHandle(db, handle);
    return { db, dialect: 'sqlite', sqlite, pgSchema: null, close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: opts.pgPoolSize ?? 10,
    ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new SearchPathDialect(new PostgresDialect({ pool })) });
  return { db, dialect: 'postgres', sqlite: null, pgSchema: opts.pgSchema ?? null, close: () => db.destroy() };
}

/** Applies pending migrations. On PostgreSQL Kysely holds an advisory lock meanwhile, so instances starting together migrate once. */
export async function migrateToLatest(handle: Pick<DatabaseHandle, 'db' | 'pgSchema'>): Promise<void> {
  const migrator = new Migrator({
    db: handle.db as unknown as Kysely<unknown>,
    // Kysely looks for its bookkeeping tables across schemas; name ours.
    ...(handle.pgSchema ? { migrationTableSchema: handle.pgSchema } : {}),
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** True when the database answers within timeoutMs (an unreachable server must not hang the health check). */
export async function pingDatabase(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.execute(db).then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
