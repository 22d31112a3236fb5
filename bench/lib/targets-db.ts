// Where the suite's data lives: a SQLite file, or a fresh schema on the
// PostgreSQL server named by TEST_DATABASE_URL or DATABASE_URL.
import path from 'node:path';
import { parseDatabaseUrl } from '../../src/config.js';
import type { GenerateTarget } from './generate.js';
import type { SizeName } from './presets.js';

export type DbKind = 'sqlite' | 'postgres';

export function postgresServerUrl(env: NodeJS.ProcessEnv): string {
  for (const name of ['TEST_DATABASE_URL', 'DATABASE_URL'] as const) {
    const raw = env[name];
    if (raw && parseDatabaseUrl(raw).dialect === 'postgres') return raw;
  }
  throw new Error('--db postgres needs TEST_DATABASE_URL or DATABASE_URL naming a PostgreSQL server (postgres://…)');
}

/** The generator's target: DATABASE_URL when given, else ./data/bench-<size>.db (or a PostgreSQL schema with --db postgres). */
export function generateTargetFrom(env: NodeJS.ProcessEnv, db: DbKind | undefined, size: SizeName, schema?: string): GenerateTarget {
  if (db === 'postgres') return { dialect: 'postgres', url: postgresServerUrl(env), schema: schema ?? `bench_${size}` };
  const raw = env.DATABASE_URL;
  if (raw && db === undefined) {
    const parsed = parseDatabaseUrl(raw);
    if (parsed.dialect === 'postgres') return { dialect: 'postgres', url: parsed.url, schema: schema ?? `bench_${size}` };
    if (parsed.path === ':memory:') throw new Error('the generator needs a file, not sqlite::memory:');
    return { dialect: 'sqlite', path: parsed.path };
  }
  return { dialect: 'sqlite', path: path.join('data', `bench-${size}.db`) };
}
