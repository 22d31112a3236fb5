// Isolated databases for tests: a fresh SQLite file each, and (when
// TEST_DATABASE_URL names a PostgreSQL server) a fresh schema each.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrations } from '../../src/db/migrations/index.js';
import { type DatabaseHandle, type Dialect, openDatabase } from '../../src/db/database.js';
import { REDIS_OPTIONS } from '../../src/lib/redis-client.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? null;
export const REDIS_URL = process.env.TEST_REDIS_URL ?? null;
export const PG_SKIP = 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped (set it to run them)';

/**
 * Which dialects this run covers (scripts/run-tests.mjs sets it per tier: npm test
 * runs SQLite, npm run test:servers runs PostgreSQL); both when unset.
 */
const DIALECTS = new Set((process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(','));
const SQLITE_SKIP = 'SQLite suites run in npm test; this tier runs PostgreSQL';
const PG_TIER_SKIP = 'PostgreSQL suites run in npm run test:servers';

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

/**
 * A client of the test Redis whose every key starts with a prefix of its own:
 * a suite's counters (rate limits keyed by user id or address) never meet
 * those of another suite or of an earlier run, as each suite gets a database of
 * its own. Instances of one suite share it, as a deployment's share one Redis.
 * Otherwise configured as the service's own client (auto-pipelined).
 */
export function testRedis(): Redis {
  if (!REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  return new Redis(REDIS_URL, { ...REDIS_OPTIONS, keyPrefix: `t_${randomBytes(6).toString('hex')}:` });
}

/** Runs the suite once per dialect; PostgreSQL is skipped, visibly, without TEST_DATABASE_URL. */
export function forEachDialect(name: string, suite: (dialect: Dialect) => void): void {
  if (DIALECTS.has('sqlite')) describe(`${name} [sqlite]`, () => suite('sqlite'));
  else describe(`${name} [sqlite]`, { skip: SQLITE_SKIP }, () => {});
  if (!DIALECTS.has('postgres')) describe(`${name} [postgres]`, { skip: PG_TIER_SKIP }, () => {});
  else if (PG_URL) describe(`${name} [postgres]`, () => suite('postgres'));
  else describe(`${name} [postgres]`, { skip: PG_SKIP }, () => {});
}

export interface TestDatabaseOptions {
  pgPoolSize?: number;
  onQuery?: (sql: string) => void;
  /**
   * Start from a database with every migration applied. On SQLite that is a
   * copy of a template migrated once per migration set (see migratedTemplate),
   * instead of twenty migrations on a fresh file per test app.
   */
  migrated?: boolean;
  /**
   * Keep the production durability settings (synchronous=NORMAL, the WAL
   * synced after each group commit, checkpoints in a worker; on PostgreSQL
   * synchronous_commit=on). Other test databases run with synchronous=OFF, no
   * WAL sync and SQLite's own checkpoints (openDatabase's durable: false), and
   * on PostgreSQL with synchronous_commit=off: a test's data never has to
   * survive a power loss, and an fsync per commit is most of a write's time.
   * The tests of durability and commits ask for this.
   */
  durable?: boolean;
}

export async function openTestDatabase(dialect: Dialect, opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const id = randomBytes(6).toString('hex');
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-test-'));
    const file = path.join(dir, `${id}.db`);
    if (opts.migrated) fs.copyFileSync(await migratedTemplate(), file);
    const handle = openDatabase({ dialect: 'sqlite', path: file }, { onQuery: opts.onQuery, durable: opts.durable ?? false });
    return testDatabase(handle, `sqlite:${file}`, async () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  if (!PG_URL) throw new Error(PG_SKIP);
  const schema = `t_${id}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const handle = openDatabase(
    { dialect: 'postgres', url: PG_URL },
    { pgSchema: schema, pgPoolSize: opts.pgPoolSize ?? 10, onQuery: opts.onQuery, durable: opts.durable === true },
  );
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}${opts.durable ? '' : ' -c synchronous_commit=off'}`);
  return testDatabase(handle, url.href, async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  });
}

let template: Promise<string> | null = null;

/**
 * A SQLite file with every migration applied, made once per set of migrations
 * and shared by the test processes of a run (and later runs): its name is a
 * hash of the migrations' sources, and it is written under another name and
 * renamed, so a process never copies a half-made template.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
    const hash = createHash('sha256');
    for (const f of fs.readdirSync(dir).sort()) hash.update(f).update(fs.readFileSync(path.join(dir, f)));
    const file = path.join(os.tmpdir(), `bets-test-template-${hash.digest('hex').slice(0, 16)}.db`);
    if (fs.existsSync(file)) return file;
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const handle = openDatabase({ dialect: 'sqlite', path: partial }, { durable: false });
    try {
      await handle.migrate();
    } finally {
      // Closing the last connection checkpoints the WAL into the file and removes it.
      await handle.close();
    }
    fs.renameSync(partial, file);
    return file;
  })();
  return template;
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

/** A database seen as a migration sees it: no table types, since the tables are as of an earlier migration. */
export type UntypedDb = Kysely<Record<string, Record<string, unknown>>>;

/** The database of a migration test, untyped, and a user row inserted with only the columns every migration has. */
export function migrationFixture(handle: TestDatabase): { db: UntypedDb; insertUser: (name: string) => Promise<number> } {
  const db = handle.db as unknown as UntypedDb;
  const insertUser = async (name: string) =>
    Number(
      (
        await db
          .insertInto('users')
          .values({ username: name, username_lower: name, email: `${name}@x.test`, password_hash: 'x', created_at: 0 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  return { db, insertUser };
}
