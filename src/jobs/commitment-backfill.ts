// Committed prices for the bets that existed before quotes were published
// (issue 33 item 7, docs/rankings.md "Existing data"). Migration 0026 flagged
// them unranked_reason 'backfill_pending' (a migration has no price provider);
// this job, in every instance, decides each flagged bet and clears its flag:
// - its entry price is not the market's quote at its opening (generated
//   benchmark and demo data: no price the provider gave in the quote cache time
//   before the opening matches it): marked 'entry_not_quoted', never ranked;
// - it finished before its committed instant (opened_at + 5 min): unflagged,
//   unranked as any such bet;
// - else committed at the provider's price at its committed instant, the
//   benchmark's beside it, and, when it has already finished, its ranked gain.
// The flags are its progress: after a restart it goes on with the bets still
// flagged. A bet whose price cannot be had stays flagged and is tried on a
// later pass. When none is left, the aggregates are recounted once
// (recomputeAggregates) and data_jobs records it, so later passes do nothing.
import type { AppContext } from '../context.js';
import type { BetRow } from '../db/tables.js';
import { committedInstant, percentageGain } from '../domain/bets.js';
import { benchmarkOf } from '../domain/rankings.js';
import {
  addDataJobProgress,
  anyFlaggedBet,
  claimDataJobDone,
  commitFlaggedBet,
  dataJobDone,
  listFlaggedBets,
  replaceFlag,
} from '../repositories/commitment-backfill.js';
import { recomputeAggregates } from '../services/recompute-aggregates.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

export type BackfillDeps = Pick<AppContext, 'config' | 'database' | 'db' | 'clock' | 'prices' | 'events'>;

/** Migration 0026's flag: decided by this job. */
export const BACKFILL_PENDING = 'backfill_pending';
/** A bet whose entry price was never a quote of the market (generated data): never ranked. */
export const ENTRY_NOT_QUOTED = 'entry_not_quoted';
export const BACKFILL_JOB = 'commitment_backfill';
/**
 * The entry check samples the provider's price a second apart: the simulated
 * walk (src/providers/prices/simulated-market.ts, STEP_MS) holds one price per
 * whole second, so these samples meet every price it had in the span.
 */
export const ENTRY_SAMPLE_MS = 1000;
const BATCH = 100;

export interface BackfillResult {
  /** Flagged bets looked at this pass. */
  seen: number;
  committed: number;
  unquoted: number;
  /** Finished before their committed instant: unflagged, unranked. */
  unflagged: number;
  /** Left flagged: a price could not be had. */
  deferred: number;
  /** True on the pass that found nothing left and recounted the aggregates. */
  recounted: boolean;
  /** Nothing left to do (the recount is done). */
  done: boolean;
}

export function commitmentBackfillJob(ctx: BackfillDeps, log: JobLogger): JobDefinition<BackfillResult> {
  // Each instance walks the flagged bets from where its last pass stopped, so a bet left flagged never holds up the others.
  const cursor = { afterId: 0 };
  return {
    name: 'commitment backfill',
    intervalMs: 10_000,
    run: () => backfillCommitments(ctx, log, cursor),
    again: (r) => r.seen >= BATCH,
  };
}

class PriceUnavailable extends Error {}

/** The provider's price of `ticker` at `at` (PriceService.marksAt), or PriceUnavailable. */
async function priceAt(ctx: BackfillDeps, ticker: string, at: number): Promise<number> {
  const price = (await ctx.prices.marksAt([ticker], at)).get(ticker);
  if (price === undefined) throw new PriceUnavailable(`no price of ${ticker} at ${new Date(at).toISOString()}`);
  return price;
}

/**
 * The instants whose prices an entry may have been quoted at: a bet opened at
 * `openedAt` got the quote in force then, published at most the quote cache
 * time before (and a second more for the walk's step), newest first.
 */
export function entrySampleInstants(openedAt: number, cacheTtlMs: number): number[] {
  const out: number[] = [];
  for (let t = openedAt; t >= openedAt - cacheTtlMs - ENTRY_SAMPLE_MS; t -= ENTRY_SAMPLE_MS) out.push(t);
  return out;
}

/** Whether a bet ended before its committed instant (closed, settled or due to settle, cancelled): it is never ranked. */
export function endsBeforeCommit(bet: Pick<BetRow, 'status' | 'opened_at' | 'closed_at' | 'settle_at'>): boolean {
  const at = committedInstant(bet.opened_at);
  return bet.status === 'CANCELLED' || (bet.closed_at !== null && bet.closed_at < at) || (bet.settle_at !== null && bet.settle_at < at);
}

/** Whether the entry price is one the provider gave at an instant the bet could have been quoted at. */
export async function entryWasQuoted(ctx: BackfillDeps, bet: Pick<BetRow, 'ticker' | 'opened_at' | 'entry_price'>): Promise<boolean> {
  for (const t of entrySampleInstants(bet.opened_at, ctx.config.prices.cacheTtlMs)) {
    if ((await priceAt(ctx, bet.ticker, t)) === bet.entry_price) return true;
  }
  return false;
}

type Decision = { kind: 'unquoted' } | { kind: 'unflag' } | { kind: 'commit'; price: number; benchmark: number | null };

async function decide(ctx: BackfillDeps, bet: BetRow): Promise<Decision> {
  if (!(await entryWasQuoted(ctx, bet))) return { kind: 'unquoted' };
  if (endsBeforeCommit(bet)) return { kind: 'unflag' };
  const at = committedInstant(bet.opened_at);
  const price = await priceAt(ctx, bet.ticker, at);
  const benchmark = await priceAt(ctx, benchmarkOf(bet.ticker), at).catch(() => null);
  return { kind: 'commit', price, benchmark };
}

/** Records one decision on the bet, still flagged (another instance may have decided it: then nothing). */
async function record(ctx: BackfillDeps, betId: number, decision: Decision): Promise<boolean> {
  return ctx.database.transaction(async (trx) => {
    const bet = await ctx.database.lock(trx, 'bets', betId, { skipLocked: true });
    if (bet?.unranked_reason !== BACKFILL_PENDING) return false;
    if (decision.kind === 'unquoted') return replaceFlag(trx, betId, BACKFILL_PENDING, ENTRY_NOT_QUOTED);
    if (decision.kind === 'unflag') return replaceFlag(trx, betId, BACKFILL_PENDING, null);
    const at = committedInstant(bet.opened_at);
    // Finished at or after its committed instant (by hand, settlement, or while flagged): ranked from its committed price.
    const ranked =
      bet.status === 'CLOSED' && bet.exit_price !== null && bet.closed_at !== null && bet.closed_at >= at
        ? percentageGain(bet.direction, decision.price, bet.exit_price)
        : null;
    const done = await commitFlaggedBet(trx, betId, BACKFILL_PENDING, { price: decision.price, benchmark: decision.benchmark, rankedGain: ranked });
    if (done?.status === 'OPEN') await ctx.events.emit(trx, 'betCommitted', { bet: done, at: ctx.clock.now() });
    return done !== undefined;
  });
}

export async function backfillCommitments(ctx: BackfillDeps, log: JobLogger, cursor = { afterId: 0 }, batch = BATCH): Promise<BackfillResult> {
  const result: BackfillResult = { seen: 0, committed: 0, unquoted: 0, unflagged: 0, deferred: 0, recounted: false, done: false };
  if (await dataJobDone(ctx.db, BACKFILL_JOB)) return { ...result, done: true };
  const page = await listFlaggedBets(ctx.db, BACKFILL_PENDING, cursor.afterId, batch);
  for (const bet of page) {
    result.seen++;
    cursor.afterId = bet.id;
    let decision: Decision;
    try {
      decision = await decide(ctx, bet);
    } catch (err) {
      result.deferred++;
      log.warn({ betId: bet.id, ticker: bet.ticker, err: (err as Error).message }, 'commitment backfill: price unavailable, retrying later');
      continue;
    }
    if (!(await record(ctx, bet.id, decision))) continue;
    if (decision.kind === 'commit') result.committed++;
    else if (decision.kind === 'unquoted') result.unquoted++;
    else result.unflagged++;
  }
  const decided = result.committed + result.unquoted + result.unflagged;
  if (decided > 0) await addDataJobProgress(ctx.db, BACKFILL_JOB, decided);
  if (page.length === batch) return result;
  // The end of the flagged bets: start over next pass; when none is left at all, recount once.
  cursor.afterId = 0;
  if (await anyFlaggedBet(ctx.db, BACKFILL_PENDING)) return result;
  result.recounted = await ctx.database.transaction(
    async (trx) => {
      // Claimed first: of instances finishing together, one recounts.
      if (!(await claimDataJobDone(trx, BACKFILL_JOB, ctx.clock.now()))) return false;
      await recomputeAggregates(trx);
      return true;
    },
    { alone: true },
  );
  if (result.recounted) log.info({ job: BACKFILL_JOB }, 'commitment backfill done: aggregates recounted');
  result.done = true;
  return result;
}
