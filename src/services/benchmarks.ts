// The benchmark price a bet's alpha is measured with (SPY, or BTC-USD for crypto).
import type { AppContext } from '../context.js';
import { benchmarkOf } from '../domain/rankings.js';

/** What fetching a benchmark's price uses of the context. */
export type BenchmarkDeps = Pick<AppContext, 'prices'>;

/**
 * The benchmark's current price for a bet on this ticker, or null when the
 * provider fails: the bet then simply has no alpha. Called before the bet's
 * transaction starts, never inside it.
 */
export async function benchmarkPrice(ctx: BenchmarkDeps, ticker: string): Promise<number | null> {
  try {
    return await ctx.prices.current(benchmarkOf(ticker));
  } catch {
    return null;
  }
}
