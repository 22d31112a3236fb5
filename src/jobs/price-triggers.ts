// The trigger engine (issue 37, docs/exits.md): rules that fire at published
// quotes. Each watcher (exit rules; price alerts) says which instruments it has
// live rules on and evaluates them against the quotes table. Each pass makes
// sure the quote in force of every such instrument is published, then has every
// watcher evaluate it up to now. Only instruments with a live rule are asked
// for: with the simulated market, all of them every quote interval; with
// Finnhub, as many a pass as PRICE_TRIGGER_QUOTES_PER_MINUTE allows, in turn.
// Instances may run it together: a rule fires under its row's lock with a
// re-check, so once; the quotes table is shared, so every instance reads the
// same first crossing.
import type { AppContext } from '../context.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

/** What a watcher's evaluation did: how many rules fired, and what failed (evaluated again next pass). */
export interface Evaluation {
  fired: number;
  failures: Array<{ ticker: string; err: unknown }>;
}

export interface QuoteWatcher {
  readonly name: string;
  /** Tickers with at least one live rule of this watcher (distinct, upper-case). */
  liveTickers(): Promise<string[]>;
  /**
   * Evaluates this watcher's live rules (on `tickers`, its live tickers of the pass; none: it has
   * nothing live, and forgets where it was, so that the next rule set starts its span afresh) against the
   * published quotes (table `quotes`, src/repositories/quotes.ts) from each rule's own starting
   * instant (exclusive for exits' last change; for alerts, the quote in force when it was set
   * counts, see issue) up to and including `until`, in order of instant. Fires each rule at most
   * once, at the first quote that meets it, with that quote's price and instant; a conditional
   * update (or the bet's row lock) makes a second instance's attempt a no-op. A failure stops
   * neither the other rules nor the other tickers; what failed is evaluated again next pass.
   * Stops early once `signal` is aborted.
   */
  evaluate(tickers: readonly string[], until: number, signal: AbortSignal): Promise<Evaluation>;
}

export type PriceTriggerDeps = Pick<AppContext, 'prices' | 'clock' | 'config'>;

/** The shortest pause between passes: the price cache time (one quote interval), at least a second. */
const MIN_INTERVAL_MS = 1_000;

/** Half of Finnhub's free tier (60 calls a minute): the rest is left to the users' own requests. */
export const DEFAULT_QUOTES_PER_MINUTE = 30;

/** How many tickers one pass may ask the provider for: all of them, except under Finnhub's rate limit. */
export function quotesPerPass(config: PriceTriggerDeps['config'], intervalMs: number): number {
  if (config.prices.provider !== 'finnhub') return Number.POSITIVE_INFINITY;
  return Math.max(1, Math.floor(((config.prices.triggerQuotesPerMinute ?? DEFAULT_QUOTES_PER_MINUTE) * intervalMs) / 60_000));
}

/** The periodic job: each pass, for every ticker any watcher has live rules on, make sure the
 *  quote in force is published (ctx.prices.quote(ticker), all at once), then call each watcher's
 *  evaluate(its tickers, now). */
export function priceTriggersJob(ctx: PriceTriggerDeps, watchers: QuoteWatcher[], log: JobLogger): JobDefinition<number> {
  const intervalMs = Math.max(MIN_INTERVAL_MS, ctx.config.prices.cacheTtlMs);
  const budget = quotesPerPass(ctx.config, intervalMs);
  let turn = 0;
  return {
    name: 'price triggers',
    intervalMs,
    run: async (signal) => {
      const lists = await Promise.all(watchers.map((w) => w.liveTickers()));
      const tickers = [...new Set(lists.flat())].sort();
      // Under a rate limit the tickers take turns; the rest are still evaluated against quotes others published.
      const ask = new Set(tickers.length <= budget ? tickers : rotate(tickers, turn, budget));
      turn = tickers.length === 0 ? 0 : (turn + Math.min(budget, tickers.length)) % tickers.length;
      // Asked together: their publications' commits share one durable commit (SQLite's group commit), and their
      // statements' round trips overlap on PostgreSQL's pool, where one after another each paid its own.
      await Promise.all(
        tickers
          .filter((ticker) => ask.has(ticker))
          .map((ticker) =>
            ctx.prices.quote(ticker).catch((err: Error) => {
              log.warn({ ticker, err: err.message }, 'price triggers: quote unavailable, evaluating the published ones');
            }),
          ),
      );
      let fired = 0;
      for (const [i, watcher] of watchers.entries()) {
        const mine = lists[i]!;
        if (signal.aborted) break;
        try {
          const done = await watcher.evaluate(mine, ctx.clock.now(), signal);
          fired += done.fired;
          for (const { ticker, err } of done.failures) {
            log.error({ ticker, watcher: watcher.name, err }, 'price triggers: evaluation failed, retried next pass');
          }
        } catch (err) {
          log.error({ watcher: watcher.name, err }, 'price triggers: evaluation failed, retried next pass');
        }
      }
      return fired;
    },
  };
}

function rotate<T>(items: T[], start: number, count: number): T[] {
  return Array.from({ length: Math.min(count, items.length) }, (_, i) => items[(start + i) % items.length]!);
}
