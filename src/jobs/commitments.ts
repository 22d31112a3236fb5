// Committed prices and settlement quotes, within seconds of their instants
// (docs/rankings.md). Each pass commits every OPEN bet whose cancel window has
// ended (its committed price: the first quote published at or after that
// instant, and the benchmark's beside it), and makes sure a quote is published
// at or after every settlement instant that has come, so the settlement job,
// however late it runs, settles at that instant's quote. A bet whose quote
// cannot be had stays uncommitted ("not yet committed") and is tried again on
// the next pass; no other price ever stands in. Instances may run it together:
// a commit is recorded once, and every instance reads the same first quote.
import type { AppContext } from '../context.js';
import { CANCEL_WINDOW_MS, commitDue } from '../domain/bets.js';
import { benchmarkOf } from '../domain/rankings.js';
import { yieldToLoop } from '../lib/yield.js';
import { listDueSettlementInstants, listUncommittedBets, oldestPendingInstants } from '../repositories/bets.js';
import { earliestUnsettledEnd, tickersAtLeagueEnds } from '../repositories/leagues.js';
import { pruneQuotes } from '../repositories/quotes.js';
import { type BetDeps, catchUp } from '../services/bets.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

export type CommitmentDeps = BetDeps & Pick<AppContext, 'db'>;

export interface CommitmentResult {
  committed: number;
  /** Bets whose quote could not be had this pass. */
  deferred: number;
  /** Settlement instants and league ends given a quote this pass. */
  published: number;
}

const BATCH = 200;
/** How long published quotes are kept once no pending instant needs them. */
export const QUOTE_RETENTION_MS = 2 * 86_400_000;

export function commitmentsJob(ctx: CommitmentDeps, log: JobLogger): JobDefinition<CommitmentResult> {
  return { name: 'commitments', intervalMs: 1_000, run: () => commitDueBets(ctx, log) };
}

/** Quotes one statement of the pruning deletes (about: those at the boundary instant go too), the loop running between. */
export const PRUNE_SLICE = 1_000;

/** Quotes no pending instant needs any more are dropped hourly. */
export function quotePruningJob(ctx: CommitmentDeps): JobDefinition<number> {
  return { name: 'quote pruning', intervalMs: 3_600_000, run: () => pruneOldQuotes(ctx) };
}

export async function commitDueBets(ctx: CommitmentDeps, log: JobLogger): Promise<CommitmentResult> {
  const result: CommitmentResult = { committed: 0, deferred: 0, published: 0 };
  const now = ctx.clock.now();
  let afterId = 0;
  for (;;) {
    const page = await listUncommittedBets(ctx.db, now - CANCEL_WINDOW_MS, afterId, BATCH);
    for (const bet of page) {
      if (!commitDue(bet, now)) continue; // settles inside its window: never ranked
      try {
        if ((await catchUp(ctx, bet, now, { skipLocked: true })).committed) result.committed++;
      } catch (err) {
        result.deferred++;
        log.warn({ betId: bet.id, ticker: bet.ticker, err: (err as Error).message }, 'commitment: quote unavailable, retrying next pass');
      }
    }
    if (page.length < BATCH) break;
    afterId = page[page.length - 1].id;
    // A page of bets still inside their window commits nothing, and so never waits for a transaction.
    await yieldToLoop();
  }
  // Settlement instants and league ends that have come: each needs the first quote at or after it.
  const instants = [...(await listDueSettlementInstants(ctx.db, now, BATCH)), ...(await tickersAtLeagueEnds(ctx.db, now, BATCH))];
  for (const { ticker, at } of instants) {
    try {
      await ctx.prices.quoteAtOrAfter(ticker, at);
      await ctx.prices.quoteAtOrAfter(benchmarkOf(ticker), at).catch(() => undefined);
      result.published++;
    } catch (err) {
      log.warn({ ticker, at, err: (err as Error).message }, 'settlement quote unavailable, retrying next pass');
    }
  }
  return result;
}

/** Drops quotes older than the retention, but never one a pending commit, settlement or league end may still need. */
export async function pruneOldQuotes(ctx: CommitmentDeps, slice = PRUNE_SLICE): Promise<number> {
  const pending = await oldestPendingInstants(ctx.db);
  let before = ctx.clock.now() - QUOTE_RETENTION_MS;
  if (pending.opened !== null) before = Math.min(before, pending.opened + CANCEL_WINDOW_MS);
  if (pending.settle !== null) before = Math.min(before, pending.settle);
  const leagueEnd = await earliestUnsettledEnd(ctx.db);
  if (leagueEnd !== null) before = Math.min(before, leagueEnd);
  let pruned = 0;
  for (;;) {
    const n = await pruneQuotes(ctx.db, before, slice);
    pruned += n;
    if (n < slice) return pruned;
    await yieldToLoop();
  }
}
