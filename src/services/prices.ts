// The price service in front of the provider: a short cache (Redis when
// configured, so instances share it; memory otherwise), single-flight so a
// burst of requests for one ticker makes one upstream call, and the last known
// price for marks when the provider fails. A quote in use is published again
// shortly before it expires (REFRESH_AHEAD), while callers are still answered
// with the one in force, so that no request waits for the provider and the
// quote log's durable commit while a ticker is being read.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import {
  type HistoryRange,
  type InstrumentInfo,
  type QuoteSnapshot,
  type PricePoint,
  type PriceProvider,
  type PublishedQuote,
  type QuoteLog,
  type PriceService,
  PriceUnavailableError,
  UnknownTickerError,
} from '../providers/prices/types.js';

interface Stamped {
  price: number;
  at: number;
}

/** Where quotes are kept: the latest one per ticker, with the time it was fetched. */
export interface PriceStore {
  get(ticker: string): Promise<Stamped | null>;
  put(ticker: string, value: Stamped): Promise<void>;
}

export class MemoryPriceStore implements PriceStore {
  private readonly map = new Map<string, Stamped>();
  async get(ticker: string): Promise<Stamped | null> {
    return this.map.get(ticker) ?? null;
  }
  async put(ticker: string, value: Stamped): Promise<void> {
    this.map.set(ticker, value);
  }
}

/** Shared between instances; the entry outlives the cache time because it is also the last known price. */
export class RedisPriceStore implements PriceStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}
  async get(ticker: string): Promise<Stamped | null> {
    const raw = await this.redis.get(this.prefix + ticker);
    if (raw === null) return null;
    const v = JSON.parse(raw) as Partial<Stamped>;
    return typeof v.price === 'number' && typeof v.at === 'number' ? { price: v.price, at: v.at } : null;
  }
  async put(ticker: string, value: Stamped): Promise<void> {
    await this.redis.set(this.prefix + ticker, JSON.stringify(value), 'EX', 7 * 86_400);
  }
}

export interface CachedPriceServiceOptions {
  provider: PriceProvider;
  clock: Clock;
  ttlMs: number;
  store: PriceStore;
  /** Every published quote is appended here (the database's quotes table); none in tests of the cache alone. */
  log?: QuoteLog;
  /** Cache or store trouble is logged, never fatal: the provider still answers. */
  onStoreError?: (err: unknown) => void;
  /** Told of cache hits, misses and provider failures (metrics). */
  observer?: { hit(): void; miss(): void; providerError(): void; providerAnswered?(): void };
}

/**
 * The last share of a quote's cache time in which a read of it also starts its
 * next publication, in the background. A quote read in that time is still
 * fresh, so its reader is answered at once; the next is logged and in the
 * cache before the one in force expires, unless the provider takes longer than
 * this share (500 ms of the default 5 s), and then the readers after the expiry
 * wait for that publication, as every reader of an expired quote does. Only
 * quotes being read are published again, each at most once per cache time
 * less this share: a tenth more of the provider's calls for a ticker read
 * all the time. Without it, a ticker read all the time made every reader of it
 * wait, once per cache time, for the provider and then the log's durable
 * commit, all of them together (docs/performance.md, Stalls).
 */
export const REFRESH_AHEAD = 0.1;

/** Chart points and unknown-ticker answers change slowly: kept in memory at least this long. */
const SLOW_CACHE_MS = 60_000;
const SLOW_CACHE_ENTRIES = 2000;

/** The provider's snapshot, and whether it was dated when loaded (a live market) rather than at a last close. */
type Reference = QuoteSnapshot & { live: boolean };

export class CachedPriceService implements PriceService {
  private readonly inflight = new Map<string, Promise<Stamped>>();
  /** Publications started ahead of an expiry (REFRESH_AHEAD), one per ticker. */
  private readonly ahead = new Map<string, Promise<Stamped>>();
  /** Publications forced by quoteAtOrAfter, shared by concurrent callers. */
  private readonly forced = new Map<string, Promise<Stamped>>();
  /** Unknown tickers are remembered briefly so junk symbols do not spend the provider's quota. */
  private readonly unknown: LRUCache<string, true>;
  private readonly charts: LRUCache<string, Promise<PricePoint[]>>;
  /** Prices at past instants: facts that never change, kept while in use (failures are not kept). */
  private readonly pastPrices = new LRUCache<string, Promise<number>>({ max: SLOW_CACHE_ENTRIES });
  /** Dated quotes for the instrument directory: shared while in flight and for the quote cache time. */
  private readonly snapshots: LRUCache<string, Promise<Reference>> | null;

  constructor(private readonly opts: CachedPriceServiceOptions) {
    const slow = {
      max: SLOW_CACHE_ENTRIES,
      ttl: Math.max(opts.ttlMs, SLOW_CACHE_MS),
      // Aged by the service's clock, as the quotes are (tests move a fake one),
      // read on every lookup: no debounce timer that would hide a move.
      perf: opts.clock,
      ttlResolution: 0,
    };
    this.unknown = new LRUCache(slow);
    this.charts = new LRUCache(slow);
    this.snapshots = opts.ttlMs > 0 ? new LRUCache({ ...slow, ttl: opts.ttlMs }) : null;
  }

  instruments(): readonly InstrumentInfo[] {
    return this.opts.provider.instruments?.() ?? [];
  }

  /**
   * A dated quote with its previous close. The price is always the published
   * quote in force (what a bet would get now); the provider's snapshot, kept
   * for the quote cache time, gives only the previous close and, outside
   * market hours, the instant of the last close.
   */
  async snapshot(ticker: string): Promise<QuoteSnapshot> {
    const [quote, reference] = await Promise.all([this.quote(ticker), this.reference(ticker)]);
    // A live market's snapshot is dated when it was loaded, which is not the quote's instant (the two are cached apart):
    // the quote in force is dated by its own publication. A closed market's is dated at its last close, which the quote
    // (the price standing since) never precedes.
    const at = reference.live ? quote.at : Math.min(quote.at, reference.at);
    return { price: quote.price, at, previousClose: reference.previousClose };
  }

  private reference(ticker: string): Promise<Reference> {
    const hit = this.snapshots?.get(ticker);
    if (hit) return hit;
    const load = this.loadSnapshot(ticker);
    this.snapshots?.set(ticker, load);
    load.catch(() => {
      if (this.snapshots?.peek(ticker) === load) this.snapshots.delete(ticker);
    });
    return load;
  }

  private async loadSnapshot(ticker: string): Promise<Reference> {
    const { provider, clock, observer } = this.opts;
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    const loadedAt = clock.now();
    if (!provider.snapshot) return { price: Number.NaN, at: loadedAt, previousClose: null, live: true };
    try {
      const snap = await provider.snapshot(ticker);
      observer?.providerAnswered?.();
      return { ...snap, live: snap.at >= loadedAt };
    } catch (err) {
      if (err instanceof UnknownTickerError) {
        observer?.providerAnswered?.();
        if (this.opts.ttlMs > 0) this.unknown.set(ticker, true);
        throw err;
      }
      observer?.providerError();
      if (err instanceof PriceUnavailableError) throw err;
      throw new PriceUnavailableError(ticker, 'provider error');
    }
  }

  async cachedSnapshot(ticker: string): Promise<QuoteSnapshot | null> {
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    const quote = await this.storeGet(ticker);
    if (!quote || quote.at > this.opts.clock.now()) return null;
    // A snapshot already loaded or in flight costs no further call; a failed one gives no previous close.
    const reference = await this.snapshots?.get(ticker)?.catch(() => null);
    if (!reference) return { price: quote.price, at: quote.at, previousClose: null };
    // Dated as snapshot() dates it: a closed market's quote at its last close.
    return { price: quote.price, at: reference.live ? quote.at : Math.min(quote.at, reference.at), previousClose: reference.previousClose };
  }

  async cachedHistory(ticker: string, range: HistoryRange): Promise<PricePoint[] | null> {
    const hit = this.charts.get(`${ticker}|${range}`);
    return hit ? hit.catch(() => null) : null;
  }

  get provider(): PriceProvider {
    return this.opts.provider;
  }

  /** Where published quotes are logged (none in tests of the cache alone). */
  get log(): QuoteLog | null {
    return this.opts.log ?? null;
  }

  async current(ticker: string): Promise<number> {
    return (await this.quote(ticker)).price;
  }

  quote(ticker: string): Promise<PublishedQuote> {
    // Joined before any await, so concurrent callers share one load, cache read included.
    let pending = this.inflight.get(ticker);
    if (!pending) {
      pending = this.load(ticker).finally(() => this.inflight.delete(ticker));
      this.inflight.set(ticker, pending);
    }
    return pending;
  }

  async quoteAtOrAfter(ticker: string, at: number): Promise<PublishedQuote> {
    const logged = await this.logFirst(ticker, at);
    if (logged) return logged;
    // The quote in force may have been published since `at` (its log write failed); else one is published now.
    const cached = await this.storeGet(ticker);
    if (cached && cached.at >= at && cached.at <= this.opts.clock.now()) return cached;
    let pending = this.forced.get(ticker);
    if (!pending) {
      pending = this.publish(ticker, this.opts.clock.now()).finally(() => this.forced.delete(ticker));
      this.forced.set(ticker, pending);
    }
    return pending;
  }

  private async load(ticker: string): Promise<Stamped> {
    const now = this.opts.clock.now();
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    const cached = await this.storeGet(ticker);
    if (this.fresh(cached, now)) {
      this.opts.observer?.hit();
      if (now - cached.at >= this.opts.ttlMs * (1 - REFRESH_AHEAD)) this.publishAhead(ticker, now);
      return cached;
    }
    this.opts.observer?.miss();
    // Expired while its next publication is under way: that one, rather than a second call to the provider.
    return this.ahead.get(ticker) ?? this.publish(ticker, now);
  }

  /** Publishes the ticker's next quote in the background, unless that is already under way. */
  private publishAhead(ticker: string, now: number): void {
    if (this.ahead.has(ticker)) return;
    const next = this.publish(ticker, now).finally(() => this.ahead.delete(ticker));
    // A failure is the next reader's: an expired quote is published again by whoever reads it.
    next.catch(() => undefined);
    this.ahead.set(ticker, next);
  }

  /** Asks the provider, then publishes its answer as the quote of instant `now`: the cache, and the log. */
  private async publish(ticker: string, now: number): Promise<Stamped> {
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    let price: number;
    try {
      price = await this.opts.provider.quote(ticker);
      this.opts.observer?.providerAnswered?.();
    } catch (err) {
      if (!(err instanceof UnknownTickerError)) this.opts.observer?.providerError();
      if (err instanceof UnknownTickerError) {
        this.opts.observer?.providerAnswered?.();
        if (this.opts.ttlMs > 0) this.unknown.set(ticker, true);
        throw err;
      }
      if (err instanceof PriceUnavailableError) throw err;
      throw new PriceUnavailableError(ticker, 'provider error');
    }
    const quote = { price, at: now };
    // Logged before it is shown: a committed price looked up later finds every quote anyone saw.
    await this.logAppend(ticker, quote);
    await this.storePut(ticker, quote);
    return quote;
  }

  private fresh(cached: Stamped | null, now: number): cached is Stamped {
    return cached !== null && now - cached.at < this.opts.ttlMs && cached.at <= now;
  }

  async marks(tickers: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      [...new Set(tickers)].map(async (ticker) => {
        try {
          out.set(ticker, await this.current(ticker));
        } catch {
          const last = await this.storeGet(ticker);
          if (last) out.set(ticker, last.price);
        }
      }),
    );
    return out;
  }

  async marksAt(tickers: string[], at: number): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      [...new Set(tickers)].map(async (ticker) => {
        const key = `${ticker}@${at}`;
        let load = this.pastPrices.get(key);
        if (!load) {
          const { provider, observer } = this.opts;
          load = provider.priceAt(ticker, at).then(
            (price) => {
              observer?.providerAnswered?.();
              return price;
            },
            (err: unknown) => {
              if (!(err instanceof UnknownTickerError)) observer?.providerError();
              throw err;
            },
          );
          this.pastPrices.set(key, load);
        }
        try {
          out.set(ticker, await load);
        } catch {
          if (this.pastPrices.peek(key) === load) this.pastPrices.delete(key);
        }
      }),
    );
    return out;
  }

  /**
   * Chart points, shared by concurrent and repeated requests for a minute
   * (failures are not kept); providers without history answer PriceUnavailableError.
   */
  history(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    const key = `${ticker}|${range}`;
    const hit = this.charts.get(key);
    if (hit) return hit;
    const load = this.loadHistory(ticker, range);
    this.charts.set(key, load);
    load.catch(() => {
      if (this.charts.peek(key) === load) this.charts.delete(key);
    });
    return load;
  }

  private async loadHistory(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    const { provider } = this.opts;
    if (!provider.history) throw new PriceUnavailableError(ticker, 'no history from this provider');
    try {
      return await provider.history(ticker, range);
    } catch (err) {
      if (err instanceof UnknownTickerError || err instanceof PriceUnavailableError) throw err;
      throw new PriceUnavailableError(ticker, 'provider error');
    }
  }

  private async logFirst(ticker: string, at: number): Promise<PublishedQuote | null> {
    if (!this.opts.log) return null;
    try {
      return await this.opts.log.firstAtOrAfter(ticker, at);
    } catch (err) {
      this.opts.onStoreError?.(err);
      return null;
    }
  }

  private async logAppend(ticker: string, quote: PublishedQuote): Promise<void> {
    try {
      await this.opts.log?.append(ticker, quote);
    } catch (err) {
      this.opts.onStoreError?.(err);
    }
  }

  private async storeGet(ticker: string): Promise<Stamped | null> {
    try {
      return await this.opts.store.get(ticker);
    } catch (err) {
      this.opts.onStoreError?.(err);
      return null;
    }
  }

  private async storePut(ticker: string, value: Stamped): Promise<void> {
    try {
      await this.opts.store.put(ticker, value);
    } catch (err) {
      this.opts.onStoreError?.(err);
    }
  }
}
