// Gauges read at scrape time: how late settlement runs and how much the
// notification outbox holds; how many transactions SQLite's group commits
// have served, and how long its writes waited for checkpoints. Both queries
// read partial indexes alone (bets_open_settle_idx, notifications_pending_idx).
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { PENDING } from '../repositories/outbox.js';

/** The part of the context this module uses. */
export type QueueMetricsDeps = Pick<AppContext, 'clock' | 'db' | 'database' | 'metrics'>;

export async function observeQueues(ctx: QueueMetricsDeps): Promise<void> {
  const committed = ctx.database.groupCommitStats;
  if (committed) ctx.metrics.observeGroupCommit(committed);
  const checkpoints = ctx.database.checkpointStats;
  if (checkpoints) ctx.metrics.observeCheckpoints(checkpoints);
  const now = ctx.clock.now();
  const due = await ctx.db
    .selectFrom('bets')
    .select((eb) => eb.fn.min('settle_at').as('oldest'))
    .where('status', '=', sql.lit('OPEN'))
    .where('settle_at', '<=', now)
    .executeTakeFirst();
  const oldest = due?.oldest === null || due?.oldest === undefined ? null : Number(due.oldest);
  ctx.metrics.settlementLag.set(oldest === null ? 0 : (now - oldest) / 1000);

  const depth = await ctx.db
    .selectFrom('notifications')
    .select(['transport'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', PENDING)
    .groupBy('transport')
    .execute();
  ctx.metrics.outboxDepth.reset();
  for (const row of depth) ctx.metrics.outboxDepth.set({ channel: row.transport }, Number(row.n));
}
