// The demo's database (npm run demo): its own, ./data/demo.db unless
// --database names another (SQLite or PostgreSQL), and never one that already
// holds users unless --reset says to replace them.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parseDatabaseUrl } from '../../src/config.js';
import type { GenerateTarget } from './generate.js';

export const DEFAULT_DEMO_DATABASE = 'sqlite:./data/demo.db';
/** On PostgreSQL the demo's data is a schema of its own in the database named. */
export const DEMO_SCHEMA = 'demo';

export interface DemoOptions {
  database: string;
  reset: boolean;
}

export const DEMO_USAGE = `usage: npm run demo -- [--database URL] [--reset]
  --database URL   sqlite:PATH or postgres://… (default ${DEFAULT_DEMO_DATABASE}); on PostgreSQL the demo
                   writes schema "${DEMO_SCHEMA}" of that database
  --reset          replace the demo data of a database that already holds users`;

export class DemoUsageError extends Error {}

export function parseDemoArgs(argv: readonly string[]): DemoOptions {
  const options: DemoOptions = { database: DEFAULT_DEMO_DATABASE, reset: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--reset') options.reset = true;
    else if (arg === '--database') {
      const value = argv[++i];
      if (!value) throw new DemoUsageError('--database needs a URL');
      options.database = value;
    } else if (arg.startsWith('--database=')) options.database = arg.slice('--database='.length);
    else throw new DemoUsageError(`unknown argument ${arg}`);
  }
  // The same check the service makes, before anything is touched.
  parseDatabaseUrl(options.database);
  return options;
}

/** Where the generator writes the demo's data for a database URL. */
export function demoTarget(database: string): GenerateTarget {
  const parsed = parseDatabaseUrl(database);
  if (parsed.dialect === 'sqlite') {
    if (parsed.path === ':memory:') throw new DemoUsageError('the demo needs a database file the server can open: sqlite::memory: is not one');
    return { dialect: 'sqlite', path: parsed.path };
  }
  return { dialect: 'postgres', url: parsed.url, schema: DEMO_SCHEMA };
}

/**
 * How many users the database already holds where the demo would write or
 * the service would read: the SQLite file's users table; on PostgreSQL, the
 * demo's schema and the URL's own default schema. 0 when there is no such table.
 */
export async function existingUsers(target: GenerateTarget): Promise<number> {
  if (target.dialect === 'sqlite') {
    if (!fs.existsSync(target.path)) return 0;
    const db = new Database(target.path, { readonly: true, fileMustExist: true });
    try {
      const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'users'").get();
      return table ? Number((db.prepare('select count(*) as n from users').get() as { n: number }).n) : 0;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    let total = 0;
    const tables = await client.query<{ schema: string }>(
      `select table_schema as schema from information_schema.tables
        where table_name = 'users' and (table_schema = $1 or table_schema = current_schema())`,
      [target.schema],
    );
    for (const { schema } of tables.rows) {
      const r = await client.query<{ n: string }>(`select count(*) as n from ${pg.escapeIdentifier(schema)}.users`);
      total += Number(r.rows[0].n);
    }
    return total;
  } finally {
    await client.end();
  }
}

/** Why the demo must not write into this database, or null when it may. */
export async function refusal(target: GenerateTarget, reset: boolean): Promise<string | null> {
  if (reset) return null;
  const users = await existingUsers(target);
  if (users === 0) return null;
  const where = target.dialect === 'sqlite' ? target.path : `${target.url.replace(/\/\/[^@]*@/, '//***@')}`;
  return `${where} already holds ${users} user${users === 1 ? '' : 's'}: the demo replaces the data it writes, so it stops here. Run it again with --reset to replace the demo data, or name another database with --database.`;
}
