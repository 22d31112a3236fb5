// The price service in front of the provider: a short cache (Redis when
// configured, so instances share it; memory otherwise), single-flight so a
// burst of requests for one ticker makes one upstream call, and the last known
// price for marks when the provider fails.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import {
  type HistoryRange,
  type InstrumentInfo,
  type QuoteSnapshot,
  type PricePoint,
  type PriceProvider,
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
  /** Cache or store trouble is logged, never fatal: the provider still answers. */
  onStoreError?: (err: unknown) => void;
  /** Told of cache hits, misses and provider failures (metrics). */
  observer?: { hit(): void; miss(): void; providerError(): void; providerAnswered?(): void };
}

/** Chart points and unknown-ticker answers change slowly: kept in memory at least this long. */
const SLOW_CACHE_MS = 60_000;
const SLOW_CACHE_ENTRIES = 2000;

export class CachedPriceService implements PriceService {
  private readonly inflight = new Map<string, Promise<number>>();
  /** Unknown tickers are remembered briefly so junk symbols do not spend the provider's quota. */
  private readonly unknown: LRUCache<string, true>;
  private readonly charts: LRUCache<string, Promise<PricePoint[]>>;
  /** Prices at past instants: facts that never change, kept while in use (failures are not kept). */
  private readonly pastPrices = new LRUCache<string, Promise<number>>({ max: SLOW_CACHE_ENTRIES });
  /** Dated quotes for the instrument directory: shared while in flight and for the quote cache time. */
  private readonly snapshots: LRUCache<string, Promise<QuoteSnapshot>> | null;

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

  /** A dated quote with its previous close; a provider without snapshots gives its quote, dated now, with none. */
  snapshot(ticker: string): Promise<QuoteSnapshot> {
    const hit = this.snapshots?.get(ticker);
    if (hit) return hit;
    const load = this.loadSnapshot(ticker);
    this.snapshots?.set(ticker, load);
    load.catch(() => {
      if (this.snapshots?.peek(ticker) === load) this.snapshots.delete(ticker);
    });
    return load;
  }

  private async loadSnapshot(ticker: string): Promise<QuoteSnapshot> {
    const { provider, clock, observer } = this.opts;
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    const now = clock.now();
    try {
      const snap = provider.snapshot ? await provider.snapshot(ticker) : { price: await provider.quote(ticker), at: now, previousClose: null };
      observer?.providerAnswered?.();
      // Also the last known price for marks when the provider fails later.
      await this.storePut(ticker, { price: snap.price, at: now });
      return snap;
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

  get provider(): PriceProvider {
    return this.opts.provider;
  }

  current(ticker: string): Promise<number> {
    // Joined before any await, so concurrent callers share one load, cache read included.
    let pending = this.inflight.get(ticker);
    if (!pending) {
      pending = this.load(ticker).finally(() => this.inflight.delete(ticker));
      this.inflight.set(ticker, pending);
    }
    return pending;
  }

  private async load(ticker: string): Promise<number> {
    const now = this.opts.clock.now();
    if (this.unknown.get(ticker)) throw new UnknownTickerError(ticker);
    const cached = await this.storeGet(ticker);
    if (this.fresh(cached, now)) {
      this.opts.observer?.hit();
      return cached.price;
    }
    this.opts.observer?.miss();
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
    await this.storePut(ticker, { price, at: now });
    return price;
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
