// A price provider tests control: set prices, make tickers fail, count calls,
// hold answers until released.
import { randomBytes } from 'node:crypto';
import type { InstrumentInfo } from '../../src/domain/instruments.js';
import type { Clock } from '../../src/lib/clock.js';
import { isCryptoTicker } from '../../src/domain/market-calendar.js';
import { type PriceProvider, PriceUnavailableError, UnknownTickerError } from '../../src/providers/prices/types.js';

export class FakePriceProvider implements PriceProvider {
  /** Unique, so a shared Redis price cache never mixes two tests' prices. */
  readonly name = `fake-${randomBytes(4).toString('hex')}`;
  readonly prices = new Map<string, number>();
  readonly failing = new Set<string>();
  calls = 0;
  /** Calls of priceAt. */
  pastCalls = 0;
  /** Every price set, with the clock's time then (the initial ones stand from the beginning): what priceAt reads. */
  private readonly timeline = new Map<string, Array<{ t: number; price: number }>>();
  private clock: Clock | null = null;
  private gate: Promise<void> | null = null;
  private release: (() => void) | null = null;

  constructor(initial: Record<string, number> = { AAPL: 100, MSFT: 400, 'BTC-USD': 50_000, SPY: 500 }) {
    for (const [k, v] of Object.entries(initial)) this.set(k, v);
  }

  /** Dates each later set() by this clock (createTestApp passes the app's), so priceAt answers the price that stood at an instant. */
  followClock(clock: Clock): void {
    this.clock = clock;
  }

  /** Every ticker it prices, as a directory entry (crypto pairs as crypto, the rest as stocks on a made-up exchange). */
  instruments(): InstrumentInfo[] {
    return [...this.prices.keys()].map((symbol) => ({
      symbol,
      name: `${symbol} Test Corp`,
      kind: isCryptoTicker(symbol) ? 'crypto' : 'stock',
      exchange: 'TEST',
    }));
  }

  set(ticker: string, price: number): void {
    this.prices.set(ticker, price);
    const t = this.clock?.now() ?? Number.NEGATIVE_INFINITY;
    const points = (this.timeline.get(ticker) ?? []).filter((p) => p.t < t);
    points.push({ t, price });
    this.timeline.set(ticker, points);
  }

  async priceAt(ticker: string, at: number): Promise<number> {
    this.pastCalls++;
    if (this.gate) await this.gate;
    if (this.failing.has(ticker) || this.failing.has('*')) throw new PriceUnavailableError(ticker, 'test failure');
    if (this.clock && at > this.clock.now()) throw new PriceUnavailableError(ticker, 'an instant in the future');
    const points = this.timeline.get(ticker);
    if (!points) throw new UnknownTickerError(ticker);
    const stood = points.filter((p) => p.t <= at);
    return (stood.at(-1) ?? points[0]).price;
  }

  /** Until released, every quote waits (to make requests overlap). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  unhold(): void {
    this.release?.();
    this.gate = null;
  }

  async quote(ticker: string): Promise<number> {
    this.calls++;
    if (this.gate) await this.gate;
    if (this.failing.has(ticker) || this.failing.has('*')) throw new PriceUnavailableError(ticker, 'test failure');
    const p = this.prices.get(ticker);
    if (p === undefined) throw new UnknownTickerError(ticker);
    return p;
  }
}
