// PRICE_PROVIDER=simulated (the default): the seeded random-walk market of
// simulated-market.ts, no network.
import type { MarketCalendar } from '../../domain/market-calendar.js';
import type { Clock } from '../../lib/clock.js';
import { SIMULATED_UNIVERSE, SimulatedMarket } from './simulated-market.js';
import { type HistoryRange, type PricePoint, type PriceProvider, UnknownTickerError } from './types.js';

export class SimulatedPriceProvider implements PriceProvider {
  readonly name = 'simulated';
  private readonly market: SimulatedMarket;

  /** seed: the deployment's secret market seed (MARKET_SEED or the stored one). */
  constructor(
    private readonly clock: Clock,
    calendar: MarketCalendar,
    seed: string,
  ) {
    this.market = new SimulatedMarket(seed, calendar);
  }

  private symbol(ticker: string) {
    const s = SIMULATED_UNIVERSE.get(ticker);
    if (!s) throw new UnknownTickerError(ticker);
    return s;
  }

  async quote(ticker: string): Promise<number> {
    return this.market.price(this.symbol(ticker), this.clock.now());
  }

  async history(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    return this.market.history(this.symbol(ticker), range, this.clock.now());
  }
}
