// PRICE_PROVIDER=simulated (the default): the seeded random-walk market of
// simulated-market.ts, no network.
import { dailyChangeBase, type InstrumentInfo } from '../../domain/instruments.js';
import { isCryptoTicker, type MarketCalendar } from '../../domain/market-calendar.js';
import type { Clock } from '../../lib/clock.js';
import { UNIVERSE_INSTRUMENTS } from './instrument-universe.js';
import { SIMULATED_UNIVERSE, SimulatedMarket } from './simulated-market.js';
import { type HistoryRange, type PricePoint, type PriceProvider, PriceUnavailableError, type QuoteSnapshot, UnknownTickerError } from './types.js';

export class SimulatedPriceProvider implements PriceProvider {
  readonly name = 'simulated';
  private readonly market: SimulatedMarket;

  /** seed: the deployment's secret market seed (MARKET_SEED or the stored one). */
  constructor(
    private readonly clock: Clock,
    private readonly calendar: MarketCalendar,
    seed: string,
  ) {
    this.market = new SimulatedMarket(seed, calendar);
  }

  private symbol(ticker: string) {
    const s = SIMULATED_UNIVERSE.get(ticker);
    if (!s) throw new UnknownTickerError(ticker);
    return s;
  }

  instruments(): readonly InstrumentInfo[] {
    return UNIVERSE_INSTRUMENTS;
  }

  async quote(ticker: string): Promise<number> {
    return this.market.price(this.symbol(ticker), this.clock.now());
  }

  /** The walk at that instant (for a stock outside market hours it stands at the last close); never ahead of the clock. */
  async priceAt(ticker: string, at: number): Promise<number> {
    const symbol = this.symbol(ticker);
    if (at > this.clock.now()) throw new PriceUnavailableError(ticker, 'an instant in the future');
    return this.market.price(symbol, at);
  }

  /** The price now, dated when it was made: now for crypto and open markets, else the last close (the price stands still since). */
  async snapshot(ticker: string): Promise<QuoteSnapshot> {
    const symbol = this.symbol(ticker);
    const now = this.clock.now();
    const at = isCryptoTicker(ticker) ? now : this.calendar.marketTime(now);
    const price = this.market.price(symbol, at);
    const previousClose = this.market.price(symbol, dailyChangeBase(this.calendar, ticker, at));
    return { price, at, previousClose };
  }

  async history(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    return this.market.history(this.symbol(ticker), range, this.clock.now());
  }
}
