// The PostgreSQL anchors: pgbench's TPC-B-like write transaction without the
// branch and teller updates (-N) and its select-only transaction (-S), on the
// service's PostgreSQL server, in a throw-away database bench_pgbench that
// the run creates and drops, with the service's pool size as clients and
// pinned to the service's core, so the anchor and the service compete for the
// same CPU.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { runCounted, SERVER_CPU } from './server.js';

export const PGBENCH_DATABASE = 'bench_pgbench';

export function findPgbench(): string | null {
  for (const candidate of ['/usr/bin/pgbench', '/usr/local/bin/pgbench', '/usr/lib/postgresql/15/bin/pgbench']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The server's URL with the scratch database instead of its own, and no search_path option. */
export function pgbenchUrl(serverUrl: string, database = PGBENCH_DATABASE): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  url.search = '';
  return url.href;
}

export interface PgbenchResult {
  mode: '-N' | '-S';
  clients: number;
  tps: number;
  latencyMs: number | null;
  failed: number;
  /** pgbench's own CPU, in % of one core. */
  clientCpuPct: number | null;
}

/** tps, the average latency and the failed transactions from pgbench's report. */
export function parsePgbench(stdout: string): { tps: number; latencyMs: number | null; failed: number } {
  const tps = /^tps = ([\d.]+)/m.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout.slice(-2000)}`);
  const latency = /^latency average = ([\d.]+) ms/m.exec(stdout);
  const failed = /^number of failed transactions: (\d+)/m.exec(stdout);
  return { tps: Number(tps[1]), latencyMs: latency ? Number(latency[1]) : null, failed: failed ? Number(failed[1]) : 0 };
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface PgbenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates the scratch database afresh (bench_pgbench unless named) and initialises it (`pgbench -i -s SCALE`). */
export async function createPgbenchDatabase(binary: string, serverUrl: string, scale: number, name = PGBENCH_DATABASE): Promise<PgbenchDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name "${name}"`);
  const drop = () => admin(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`).then(() => undefined));
  await drop();
  await admin(serverUrl, (c) => c.query(`create database ${name}`));
  const url = pgbenchUrl(serverUrl, name);
  try {
    await promisify(execFile)(binary, ['-i', '-q', '-s', String(scale), url], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    await drop();
    throw err;
  }
  return { url, drop };
}

/** One pgbench run of `durationS` seconds on the service's core. */
export async function runPgbench(binary: string, url: string, mode: '-N' | '-S', clients: number, durationS: number): Promise<PgbenchResult> {
  const run = await runCounted(SERVER_CPU, binary, [mode, '-c', String(clients), '-j', '1', '-T', String(durationS), url]);
  if (run.code !== 0) throw new Error(`pgbench ${mode} exited with ${run.code}:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
  return {
    mode,
    clients,
    ...parsePgbench(run.stdout),
    clientCpuPct: run.cpuSeconds === null || run.wallSeconds <= 0 ? null : (run.cpuSeconds / run.wallSeconds) * 100,
  };
}
