// What one pass of each periodic job costs on the full data: the service is
// built in this process (buildApp, the benchmark's production configuration,
// the job runner off) on a fresh copy of the generated database, and each
// job's pass (src/jobs/schedule.ts) runs `--passes` times in a row, printing
// the time of each. SQLite's statements are synchronous, so a pass's time is
// time the event loop gave it (less what it waited for a durable commit's
// sync, on the thread pool); a job's first pass may do the
// work that was waiting (the record's publication of yesterday, on a copy
// that has not published it).
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/job-costs.ts [--passes 4] [--job NAME]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { JobLogger } from '../src/jobs/periodic-job.js';
import { periodicJobs } from '../src/jobs/schedule.js';
import { PRESETS } from './lib/presets.js';
import { serviceEnv } from './lib/service-env.js';

const { values } = parseArgs({ options: { passes: { type: 'string', default: '4' }, job: { type: 'string' } } });
const passes = Number(values.passes);
const source = path.resolve('data', `bench-${PRESETS.full.name}.db`);
if (!fs.existsSync(source)) throw new Error(`${source} is missing: npm run bench:generate -- --size full`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-jobs-'));
const database = path.join(dir, 'bets.db');
fs.copyFileSync(source, database);
const env = serviceEnv({ databaseUrl: `sqlite:${database}`, jwtSecret: randomBytes(32).toString('hex'), redisUrl: null, poolSize: null });
const app = await buildApp(loadConfig({ ...env, WORKERS: 'off', LOG_LEVEL: 'silent' }), {});
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
try {
  await app.ready();
  for (const job of periodicJobs(app.ctx, quiet)) {
    if (values.job && job.name !== values.job) continue;
    const runs: string[] = [];
    for (let i = 0; i < passes; i++) {
      const start = performance.now();
      await job.run(new AbortController().signal);
      runs.push(`${(performance.now() - start).toFixed(1)} ms`);
    }
    console.log(`${job.name.padEnd(22)} every ${String(job.intervalMs / 1000).padStart(5)} s: ${runs.join(' / ')}`);
  }
} finally {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
