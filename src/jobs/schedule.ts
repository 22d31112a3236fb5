// Every periodic job of the app, in one table: startWorkers (src/jobs/workers.ts) hands
// each to the job runner when WORKERS is on. To add one, write its pass as a
// function of the context and add a row here.
import type { AppContext } from '../context.js';
import { queueDueDigests } from '../services/email.js';
import { endDueLocalSubscriptions } from '../services/local-payments.js';
import { publishYesterday } from '../services/record.js';
import { recordConsensusCloses } from '../services/consensus.js';
import { leagueJob } from './league-worker.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';
import { settlementJob } from './settlement.js';
import { commitmentBackfillJob } from './commitment-backfill.js';
import { commitmentsJob, quotePruningJob } from './commitments.js';
import { exitRulesWatcher } from '../services/exit-rules.js';
import { priceAlertsWatcher } from '../services/price-alerts.js';
import { priceTriggersJob } from './price-triggers.js';

/** How many due digests one run queues (the job goes again at once while it finds that many). */
const DIGESTS_PER_RUN = 50;

export function periodicJobs(ctx: AppContext, log: JobLogger): Array<JobDefinition<unknown>> {
  // Digests now due are queued as often as the outbox looks for mail, so one goes out within a second or two of its hour.
  const digests: JobDefinition<number> = {
    name: 'due digests',
    intervalMs: 1_000,
    run: () => queueDueDigests(ctx, DIGESTS_PER_RUN),
    again: (queued) => queued >= DIGESTS_PER_RUN,
  };
  const jobs: Array<JobDefinition<unknown>> = [
    commitmentsJob(ctx, log),
    settlementJob(ctx, log),
    // Exit rules (docs/exits.md) at every quote interval, on the instruments with a live rule only.
    priceTriggersJob(ctx, [exitRulesWatcher(ctx), priceAlertsWatcher(ctx)], log),
    quotePruningJob(ctx),
    // Existing data (migration 0026): commits or marks the bets flagged then, recounts the aggregates once, then idles.
    commitmentBackfillJob(ctx, log),
    leagueJob(ctx, log),
    digests,
    // The public record's day is sealed once it is over; hourly is soon enough and cheap when there is nothing new.
    { name: 'record publication', intervalMs: 3_600_000, run: () => publishYesterday(ctx) },
    // Each instrument's close has its consensus call stored within a minute (docs/consensus.md), and is scored at the next.
    { name: 'consensus calls', intervalMs: 60_000, run: (signal) => recordConsensusCloses(ctx, log, signal) },
    ...ctx.outbox.jobs(),
  ];
  // The local provider's cancellations at period end take effect within a minute of the date.
  if (ctx.payments.kind === 'local') jobs.push({ name: 'local subscriptions', intervalMs: 60_000, run: () => endDueLocalSubscriptions(ctx) });
  return jobs;
}
