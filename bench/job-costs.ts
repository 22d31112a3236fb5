// What one pass of each periodic job costs on the full data: the service is
// built in this process (buildApp, the benchmark's production configuration,
// the job runner off) on a fresh copy of the generated database, and each
// job's pass (src/jobs/schedule.ts) runs `--passes` times in a row, printing
// the time of each. SQLite's statements are synchronous, so a pass's time is
// time the event loop gave it (less what it waited for a durable commit's
// sync, on the thread pool); a job's first pass may do the
// work that was waiting (the record's publication of yesterday, on a copy
// that has not published it). Each pass's CPU is the process's, its threads' included
// (the WAL's syncs on the thread pool, the checkpoint worker).
//
// `--rules N` plants the benchmark's trigger-engine rules first (bench/lib/triggers.ts:
// exit rules and price alerts, most far from the price), and `--pause MS` waits between
// passes, so that the price triggers' passes each see a new quote interval as the
// running service's do (the simulated market's quotes last PRICE_CACHE_TTL_MS).
// `--backlog N` queues N notices for the log channel first, as a trader with
// many linked followers leaves them: what the other channels' passes cost beside it.
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/job-costs.ts [--passes 4] [--job NAME] [--rules 10000 --pause 5000] [--backlog 150000]
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { JobLogger } from '../src/jobs/periodic-job.js';
import { periodicJobs } from '../src/jobs/schedule.js';
import { enqueueNotifications } from '../src/repositories/notifications.js';
import { buildInProcess, copyFullData } from './lib/full-data-copy.js';
import { TriggerRules } from './lib/triggers.js';

const { values } = parseArgs({
  options: {
    passes: { type: 'string', default: '4' },
    job: { type: 'string' },
    rules: { type: 'string', default: '0' },
    pause: { type: 'string', default: '0' },
    backlog: { type: 'string', default: '0' },
  },
});
const passes = Number(values.passes);
const pauseMs = Number(values.pause);

const copy = copyFullData('bench-jobs');
const app = await buildInProcess(copy);
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const rules = Number(values.rules) > 0 ? new TriggerRules(`sqlite:${copy.database}`) : null;
try {
  await app.ready();
  if (rules) {
    const planted = await rules.plant(Number(values.rules), new Set(), async (t) => (await app.ctx.prices.quote(t)).price);
    console.log(`planted ${planted.total} rules (${planted.exits} exits, ${planted.alerts} alerts) on ${planted.tickers} instruments`);
  }
  const backlog = Number(values.backlog);
  if (backlog > 0) {
    const { ctx } = app;
    const owner = await ctx.db.selectFrom('users').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
    const now = ctx.clock.now();
    const notices = Array.from({ length: backlog }, (_, i) => ({
      user_id: owner.id,
      transport: 'log' as const,
      chat_id: `backlog-${i % 50}`,
      kind: 'chat_reply' as const,
      text: `backlog ${i}`,
      bet_id: null,
    }));
    await ctx.database.transaction((trx) => enqueueNotifications(trx, notices, now));
    console.log(`queued ${backlog} notices for the log channel`);
  }
  for (const job of periodicJobs(app.ctx, quiet)) {
    if (values.job && job.name !== values.job) continue;
    const runs: string[] = [];
    for (let i = 0; i < passes; i++) {
      if (i > 0 && pauseMs > 0) await sleep(pauseMs);
      const start = performance.now();
      const cpu = process.cpuUsage();
      await job.run(new AbortController().signal);
      const used = process.cpuUsage(cpu);
      runs.push(
        `${(performance.now() - start).toFixed(1)} ms (CPU ${(used.user / 1000).toFixed(1)} user, ${(used.system / 1000).toFixed(1)} system)`,
      );
    }
    console.log(`${job.name.padEnd(22)} every ${String(job.intervalMs / 1000).padStart(5)} s: ${runs.join(' / ')}`);
  }
} finally {
  await rules?.close();
  await app.close();
  copy.remove();
}
