// Isolated databases for tests: a fresh SQLite file each, and (when
// TEST_DATABASE_URL names a PostgreSQL server) a fresh schema each.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import pg from 'pg';
import { migrations } from '../../src/db/migrations/index.js';
import { type DatabaseHandle, type Dialect, openDatabase } from '../../src/db/database.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? null;
export const REDIS_URL = process.env.TEST_REDIS_URL ?? null;
export const PG_SKIP = 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped (set it to run them)';

export interface TestDatabase extends DatabaseHandle {
  /** The DATABASE_URL-style address of this database (for child processes). */
  url: string;
}

/** The handle itself, with its address and a close that also removes what the test made. */
function testDatabase(handle: DatabaseHandle, url: string, cleanUp: () => Promise<void>): TestDatabase {
  const closeDb = handle.close.bind(handle);
  return Object.assign(handle, {
    url,
    close: async () => {
      await closeDb();
      await cleanUp();
    },
  });
}

/** Runs the suite once per dialect; PostgreSQL is skipped, visibly, without TEST_DATABASE_URL. */
export function forEachDialect(name: string, suite: (dialect: Dialect) => void): void {
  describe(`${name} [sqlite]`, () => suite('sqlite'));
  if (PG_URL) describe(`${name} [postgres]`, () => suite('postgres'));
  else describe(`${name} [postgres]`, { skip: PG_SKIP }, () => {});
}

export async function openTestDatabase(dialect: Dialect, opts: { pgPoolSize?: number; onQuery?: (sql: string) => void } = {}): Promise<TestDatabase> {
  const id = randomBytes(6).toString('hex');
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-test-'));
    const file = path.join(dir, `${id}.db`);
    const handle = openDatabase({ dialect: 'sqlite', path: file }, { onQuery: opts.onQuery });
    return testDatabase(handle, `sqlite:${file}`, async () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  if (!PG_URL) throw new Error(PG_SKIP);
  const schema = `t_${id}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const handle = openDatabase({ dialect: 'postgres', url: PG_URL }, { pgSchema: schema, pgPoolSize: opts.pgPoolSize ?? 10, onQuery: opts.onQuery });
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return testDatabase(handle, url.href, async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  });
}

/** Applies the app's migrations up to and including `name` only: a backfill test writes rows as they were before the next one. */
export async function migrateTestDatabaseTo(handle: TestDatabase, name: string): Promise<void> {
  const migrator = new Migrator({
    db: handle.db as unknown as Kysely<unknown>,
    ...(handle.pgSchema ? { migrationTableSchema: handle.pgSchema } : {}),
    provider: { getMigrations: async () => migrations },
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}
