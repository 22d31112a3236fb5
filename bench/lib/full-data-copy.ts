// The diagnostic scripts' common start: a copy of the benchmark's full data
// of their own, so that their writes never reach the next run, and the
// benchmark's service environment pointed at it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { PRESETS } from './presets.js';
import { serviceEnv } from './service-env.js';

export interface FullDataCopy {
  /** The copy's file. */
  database: string;
  /** The benchmark's service environment on the copy (serviceEnv, SQLite, no Redis). */
  env: Record<string, string>;
  /** Deletes the copy and its WAL. */
  remove(): void;
}

/** Copies data/bench-full.db into a directory of its own, or says how to generate it. */
export function copyFullData(prefix: string): FullDataCopy {
  const source = path.resolve('data', `bench-${PRESETS.full.name}.db`);
  if (!fs.existsSync(source)) throw new Error(`${source} is missing: npm run bench:generate -- --size full`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const database = path.join(dir, 'bets.db');
  fs.copyFileSync(source, database);
  const env = serviceEnv({ databaseUrl: `sqlite:${database}`, jwtSecret: randomBytes(32).toString('hex'), redisUrl: null, poolSize: null });
  return { database, env, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The service built in this process on the copy, in the benchmark's
 * production configuration with the background workers off (so that only
 * what the script does runs) and no log lines.
 */
export function buildInProcess(copy: FullDataCopy): Promise<FastifyInstance> {
  return buildApp(loadConfig({ ...copy.env, WORKERS: 'off', LOG_LEVEL: 'silent' }), {});
}
