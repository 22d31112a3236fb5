// Automatic settlement: closes, at the current price, every OPEN bet whose
// settlement time (DESIGN: first NYSE close on or after the target date for
// stocks and ETFs, 00:00 UTC after it for crypto) has passed. Runs at start
// and every SETTLEMENT_INTERVAL_SECONDS (a minute by default) in each instance; bets are claimed one by one with
// FOR UPDATE SKIP LOCKED, so instances sharing PostgreSQL never close a bet
// twice. A ticker whose price cannot be fetched waits for the next run.
import type { AppContext } from '../context.js';
import { listDueBets } from '../repositories/bets.js';
import { benchmarkOf } from '../domain/rankings.js';
import { benchmarkPrice } from '../services/benchmarks.js';
import { type BetDeps, settleBet } from '../services/bets.js';
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
  const prices = new Map<string, number | null>();
  // Benchmark prices (for alpha), once per benchmark and pass; a failure only leaves those bets without alpha.
  const benchmarks = new Map<string, Promise<number | null>>();
  let afterId = 0;
  for (;;) {
    const due = await listDueBets(ctx.db, now, afterId, BATCH);
    for (const bet of due) {
      const price = await priceOf(ctx, log, bet.ticker, prices);
      if (price === null) {
        result.deferred++;
        continue;
      }
      const benchmark = benchmarkOf(bet.ticker);
      if (!benchmarks.has(benchmark)) benchmarks.set(benchmark, benchmarkPrice(ctx, bet.ticker));
      const settled = await settleBet(ctx, bet.id, { price, benchmark: await benchmarks.get(benchmark)! });
      if (!settled) continue; // closed, cancelled or claimed by another instance meanwhile
      result.settled++;
      log.info(
        { betId: settled.id, userId: settled.user_id, ticker: settled.ticker, exitPrice: price, gain: settled.percentage_gain },
        'settled bet',
      );
    }
    if (due.length < BATCH) break;
    afterId = due[due.length - 1].id;
  }
  return result;
}

/** One price per ticker and pass; null (logged) when the provider fails. */
async function priceOf(ctx: SettlementDeps, log: JobLogger, ticker: string, prices: Map<string, number | null>): Promise<number | null> {
  const known = prices.get(ticker);
  if (known !== undefined) return known;
  let price: number | null = null;
  try {
    price = await ctx.prices.current(ticker);
  } catch (err) {
    log.warn({ ticker, err: (err as Error).message }, 'settlement: price unavailable, retrying next run');
  }
  prices.set(ticker, price);
  return price;
}
