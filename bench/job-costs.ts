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
import { parseArgs } from 'node:util';
import type { JobLogger } from '../src/jobs/periodic-job.js';
import { periodicJobs } from '../src/jobs/schedule.js';
import { buildInProcess, copyFullData } from './lib/full-data-copy.js';

const { values } = parseArgs({ options: { passes: { type: 'string', default: '4' }, job: { type: 'string' } } });
const passes = Number(values.passes);

const copy = copyFullData('bench-jobs');
const app = await buildInProcess(copy);
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
  copy.remove();
}
