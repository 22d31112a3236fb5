// Automatic settlement: every OPEN bet whose settlement instant (DESIGN: first
// NYSE close on or after the target date for stocks and ETFs, 00:00 UTC after
// it for crypto) has passed closes at the first quote published at or after
// that instant, dated that instant, however late this pass runs
// (docs/rankings.md); the commitments job publishes that quote within seconds
// of the instant. Runs at start and every SETTLEMENT_INTERVAL_SECONDS in each
// instance; bets are claimed one by one with FOR UPDATE SKIP LOCKED, so
// instances sharing PostgreSQL never close a bet twice. A bet whose quote
// cannot be had waits for the next run.
import type { AppContext } from '../context.js';
import { yieldToLoop } from '../lib/yield.js';
import { type DueCursor, listDueBets } from '../repositories/bets.js';
import { type BetDeps, type CaughtUp, catchUp } from '../services/bets.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

/** The part of the context this module uses. */
export type SettlementDeps = Pick<AppContext, 'clock' | 'config' | 'db' | 'prices'> & BetDeps;

export interface SettlementResult {
  settled: number;
  /** Due bets left OPEN because their price could not be fetched. */
  deferred: number;
}

const BATCH = 200;

/** Settlement as a periodic job, every SETTLEMENT_INTERVAL_SECONDS. */
export function settlementJob(ctx: SettlementDeps, log: JobLogger): JobDefinition<SettlementResult> {
  return { name: 'settlement', intervalMs: ctx.config.workers.settlementIntervalMs, run: () => settleDue(ctx, log) };
}

/** One pass over every due bet. */
export async function settleDue(ctx: SettlementDeps, log: JobLogger): Promise<SettlementResult> {
  const result: SettlementResult = { settled: 0, deferred: 0 };
  const now = ctx.clock.now();
  let after: DueCursor | null = null;
  for (;;) {
    const due = await listDueBets(ctx.db, now, after, BATCH);
    for (const bet of due) {
      let outcome: CaughtUp;
      try {
        outcome = await catchUp(ctx, bet, now, { skipLocked: true });
      } catch (err) {
        result.deferred++;
        log.warn({ betId: bet.id, ticker: bet.ticker, err: (err as Error).message }, 'settlement: price unavailable, retrying next run');
        continue;
      }
      // Closed, cancelled or claimed by another instance meanwhile.
      const settled = outcome.bet;
      if (!outcome.settled || !settled) continue;
      result.settled++;
      log.info(
        { betId: settled.id, userId: settled.user_id, ticker: settled.ticker, exitPrice: settled.exit_price, gain: settled.percentage_gain },
        'settled bet',
      );
    }
    if (due.length < BATCH) break;
    const last = due[due.length - 1];
    after = { settleAt: Number(last.settle_at), id: last.id };
    await yieldToLoop();
  }
  return result;
}
