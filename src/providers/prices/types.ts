// The price layer's contract. Providers (simulated market, Finnhub) implement
// PriceProvider; the app uses a PriceService (ctx.prices), which caches and
// deduplicates provider calls.
import type { InstrumentInfo } from '../../domain/instruments.js';

export type { InstrumentInfo };

/** A well-formed ticker the market does not know → 404. */
export class UnknownTickerError extends Error {
  constructor(readonly ticker: string) {
    super(`Unknown ticker ${ticker}`);
    this.name = 'UnknownTickerError';
  }
}

/** The provider failed (time-out, non-2xx, malformed answer) → 503 / 500 per SPEC and DESIGN. */
export class PriceUnavailableError extends Error {
  constructor(
    readonly ticker: string,
    reason: string,
  ) {
    super(`Price of ${ticker} unavailable: ${reason}`);
    this.name = 'PriceUnavailableError';
  }
}

export type HistoryRange = '1d' | '5d' | '1m' | '3m' | '1y';

/** One chart point: epoch milliseconds and the price then. */
export interface PricePoint {
  t: number;
  price: number;
}

/** A quote with its time and the price a daily change is measured from. */
export interface QuoteSnapshot {
  price: number;
  /** Epoch ms the price is from: now, or for a stock outside NYSE hours its last close. */
  at: number;
  /** The previous close (stocks, ETFs) or the price 24 hours before (crypto); null when the provider has none. */
  previousClose: number | null;
}

export interface PriceProvider {
  readonly name: string;
  /** The instrument directory this provider quotes (without prices). */
  instruments?(): readonly InstrumentInfo[];
  /** A quote with its time and previous close; same errors as quote. */
  snapshot?(ticker: string): Promise<QuoteSnapshot>;
  /** Current price; throws UnknownTickerError or PriceUnavailableError. */
  quote(ticker: string): Promise<number>;
  /**
   * The price at a past instant (epoch ms, not after now): for a stock outside
   * market hours, the last price before it. Same errors as quote; an instant
   * in the future is PriceUnavailableError (nobody may learn a price ahead).
   */
  priceAt(ticker: string, at: number): Promise<number>;
  /** Chart points over a range ending now, oldest first; same errors as quote. */
  history?(ticker: string, range: HistoryRange): Promise<PricePoint[]>;
}

/** A quote the service published: its price and the instant it was published (from then on, until the next one, every answer shows it). */
export interface PublishedQuote {
  price: number;
  at: number;
}

/** Where published quotes are kept, so the first one at or after an instant can be found later (src/repositories/quotes.ts). */
export interface QuoteLog {
  append(ticker: string, quote: PublishedQuote): Promise<void>;
  firstAtOrAfter(ticker: string, at: number): Promise<PublishedQuote | null>;
}

export interface PriceService {
  /** Current price (cached a few seconds, single-flight); throws UnknownTickerError / PriceUnavailableError. */
  current(ticker: string): Promise<number>;
  /** The published quote in force now (the one current() gives), with its instant; throws like current(). */
  quote(ticker: string): Promise<PublishedQuote>;
  /**
   * The first quote published at or after `at` (not after now): from the log,
   * else the one in force when it was published since, else one published now.
   * Throws like current() when a quote must be published and the provider fails.
   */
  quoteAtOrAfter(ticker: string, at: number): Promise<PublishedQuote>;
  /**
   * Marks for several tickers at once, one provider call per distinct ticker;
   * a ticker whose provider call fails falls back to its last known price and
   * is absent when none is known.
   */
  marks(tickers: string[]): Promise<Map<string, number>>;
  /**
   * Marks at a past instant (a league's end), one provider call per distinct
   * ticker, kept once known (a past price does not change); a ticker whose
   * call fails is absent (no stand-in: a later call tries again).
   */
  marksAt(tickers: string[], at: number): Promise<Map<string, number>>;
  /** Chart points (uncached); throws like current(), PriceUnavailableError when the provider has none. */
  history?(ticker: string, range: HistoryRange): Promise<PricePoint[]>;
  /** The provider's instrument directory (empty when it has none). */
  instruments(): readonly InstrumentInfo[];
  /** A quote with its time and previous close, cached like current(); throws like current(). */
  snapshot(ticker: string): Promise<QuoteSnapshot>;
  /**
   * What the shared quote cache already holds for a ticker, never asking the
   * provider (anonymous reads, which must not spend its quota): the last
   * published quote with its instant, whatever its age, and the previous
   * close when a snapshot of it is cached; null when no quote is held.
   */
  cachedSnapshot(ticker: string): Promise<QuoteSnapshot | null>;
  /** Chart points already cached for a range, never asking the provider; null when none are. */
  cachedHistory(ticker: string, range: HistoryRange): Promise<PricePoint[] | null>;
}
