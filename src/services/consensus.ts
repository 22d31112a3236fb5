// The skill-weighted consensus of an instrument (GET
// /instruments/{symbol}/consensus, docs/consensus.md): its holders now, raw
// and weighted by ranked skill over the rankings' default window, and how its
// stored calls did; the job that stores each close's call and scores it at the
// next close; and every instrument's consensus for sorting the directory.
import type { AppContext } from '../context.js';
import {
  type Consensus,
  closeAfter,
  closesAtOrBefore,
  consensusOf,
  type Holder,
  nextDayMove,
  RECENT_CALLS,
  trackRecordOf,
} from '../domain/consensus.js';
import { RANKINGS_DEFAULT_PERIOD } from '../domain/rankings.js';
import { notFound } from '../errors.js';
import { yieldToLoop } from '../lib/yield.js';
import type { JobLogger } from '../jobs/periodic-job.js';
import { callsOf, insertCall, openHolders, setNextPrice, tickersWithCall, unscoredCalls } from '../repositories/consensus.js';
import type { ConsensusResponse } from '../schemas/consensus.js';
import { iso } from './bet-views.js';
import { tickerOrBadRequest } from './price-requests.js';
import { CONSENSUS_TTL_MS } from './shared-answers.js';
import { currentWindows } from './window-totals.js';

export type ConsensusDeps = Pick<AppContext, 'db' | 'database' | 'clock' | 'config' | 'prices' | 'sharedAnswers'>;

/**
 * How long after a close its call may still be stored: the holders read are
 * those of the run, so a run much later than the close (workers were down)
 * would store a call the close never had; that close is skipped instead.
 */
export const CALL_GRACE_MS = 15 * 60_000;
/** Calls scored per run at most (each needs a past quote). */
const SCORES_PER_RUN = 500;

/** GET /instruments/{symbol}/consensus: 400 badly formed, 404 not in the directory; shared per symbol for CONSENSUS_TTL_MS. */
export function instrumentConsensus(ctx: ConsensusDeps, rawSymbol: string): Promise<ConsensusResponse> {
  const symbol = tickerOrBadRequest(rawSymbol);
  if (!ctx.prices.instruments().some((i) => i.symbol === symbol)) throw notFound(`Unknown instrument ${symbol}`);
  return ctx.sharedAnswers.consensus(symbol, () => makeConsensus(ctx, symbol));
}

async function makeConsensus(ctx: ConsensusDeps, symbol: string): Promise<ConsensusResponse> {
  await currentWindows(ctx);
  const [holders, calls] = await Promise.all([openHolders(ctx.db, [symbol], RANKINGS_DEFAULT_PERIOD), callsOf(ctx.db, [symbol])]);
  const c = consensusOf(holders.get(symbol) ?? [], ctx.config.consensusMinHolders);
  const recorded = calls.map((r) => ({ call: r.call, closePrice: r.close_price, nextPrice: r.next_price }));
  return {
    symbol,
    as_of: iso(ctx.clock.now()),
    cached_seconds: CONSENSUS_TTL_MS / 1000,
    skill_period: RANKINGS_DEFAULT_PERIOD,
    min_weighted_holders: ctx.config.consensusMinHolders,
    raw: c.raw,
    weighted: c.weighted,
    record: {
      ...trackRecordOf(recorded),
      recent: calls.slice(0, RECENT_CALLS).map((r, i) => {
        const move = nextDayMove(recorded[i]);
        return {
          close_at: iso(r.close_at),
          call: r.call,
          holders: r.holders,
          close_price: r.close_price,
          next_close_at: iso(r.next_close_at),
          next_price: r.next_price,
          move_percent: move === null ? null : Math.round(move * 10_000) / 10_000,
        };
      }),
    },
  };
}

/** Every instrument's consensus now (the directory's sort), shared like one instrument's. */
export async function everyConsensus(ctx: ConsensusDeps): Promise<ReadonlyMap<string, Consensus>> {
  const answer = await ctx.sharedAnswers.consensus('*', async () => {
    await currentWindows(ctx);
    const all = new Map<string, Consensus>();
    // A slice of instruments a statement, the loop running between: every open bet's holder at once was 118 ms on the full data.
    const symbols = ctx.prices.instruments().map((i) => i.symbol);
    for (let i = 0; i < symbols.length; i += TICKERS_PER_SLICE) {
      if (i > 0) await yieldToLoop();
      const holders = await openHolders(ctx.db, symbols.slice(i, i + TICKERS_PER_SLICE), RANKINGS_DEFAULT_PERIOD);
      for (const [ticker, list] of holders) all.set(ticker, consensusOf(list, ctx.config.consensusMinHolders));
    }
    return { all };
  });
  return answer.all;
}

/**
 * One pass of the consensus job: for each instrument whose close passed less
 * than CALL_GRACE_MS ago and that has holders, stores that close's weighted
 * call with the price at the close (the first quote at or after it; a close
 * is stored once); then prices the next close of calls whose next close has
 * passed, which scores them. A price that fails is tried again next run.
 * Answers how many calls it stored and scored.
 */
/**
 * Tickers whose holders one statement reads, the loop running between: a
 * popular ticker of the full benchmark data has 2,800 holders (9 ms on SQLite),
 * and eight of them took 55 ms.
 */
export const TICKERS_PER_SLICE = 1;

export async function recordConsensusCloses(
  ctx: ConsensusDeps,
  log: JobLogger,
  signal?: AbortSignal,
  tickersPerSlice = TICKERS_PER_SLICE,
): Promise<number> {
  const now = ctx.clock.now();
  const calendar = ctx.config.marketCalendar;
  const due = new Map<number, string[]>();
  for (const [symbol, closeAt] of closesAtOrBefore(
    calendar,
    ctx.prices.instruments().map((i) => i.symbol),
    now,
  )) {
    if (now - closeAt >= CALL_GRACE_MS) continue;
    const list = due.get(closeAt) ?? [];
    due.set(closeAt, list);
    list.push(symbol);
  }
  let done = 0;
  if (due.size > 0) await currentWindows(ctx);
  for (const [closeAt, tickers] of due) {
    const stored = await tickersWithCall(ctx.db, tickers, closeAt);
    const todo = tickers.filter((t) => !stored.has(t));
    const holders = new Map<string, Holder[]>();
    for (let i = 0; i < todo.length; i += tickersPerSlice) {
      if (i > 0) await yieldToLoop();
      for (const [ticker, list] of await openHolders(ctx.db, todo.slice(i, i + tickersPerSlice), RANKINGS_DEFAULT_PERIOD)) holders.set(ticker, list);
    }
    for (const ticker of todo) {
      const list = holders.get(ticker);
      // Nobody holds it: there is nothing to call, and no quote is spent on it.
      if (!list || signal?.aborted) continue;
      const c = consensusOf(list, ctx.config.consensusMinHolders);
      let price: number;
      try {
        price = (await ctx.prices.quoteAtOrAfter(ticker, closeAt)).price;
      } catch (err) {
        log.warn({ err, ticker }, 'consensus call not stored: no price at the close');
        continue;
      }
      await insertCall(ctx.db, {
        ticker,
        closeAt,
        call: c.weighted.call,
        holders: c.weighted.holders,
        longWeight: c.weighted.long,
        shortWeight: c.weighted.short,
        closePrice: price,
        nextCloseAt: closeAfter(calendar, ticker, closeAt),
      });
      done++;
    }
  }
  for (const u of await unscoredCalls(ctx.db, now, SCORES_PER_RUN)) {
    if (signal?.aborted) break;
    try {
      const price = await priceAtClose(ctx, u.ticker, u.next_close_at, now);
      if (price === null) continue;
      await setNextPrice(ctx.db, u.ticker, u.close_at, price);
      done++;
    } catch (err) {
      log.warn({ err, ticker: u.ticker }, 'consensus call not scored: no price at the next close');
    }
  }
  return done;
}

/**
 * The price that scores a call at its next close: soon after the close, the
 * first quote published at or after it (what a bet closed then got); later
 * (the workers were down, and published quotes are pruned after two days),
 * the provider's price at that instant, never a later quote. Null when the
 * provider has none yet (tried again next run).
 */
async function priceAtClose(ctx: ConsensusDeps, ticker: string, closeAt: number, now: number): Promise<number | null> {
  if (now - closeAt < CALL_GRACE_MS) return (await ctx.prices.quoteAtOrAfter(ticker, closeAt)).price;
  return (await ctx.prices.marksAt([ticker], closeAt)).get(ticker) ?? null;
}
