// PRICE_PROVIDER=simulated (the default): the deterministic market of
// simulated-market.ts, no network.
import type { MarketCalendar } from '../../domain/market-calendar.js';
import type { Clock } from '../../lib/clock.js';
import { SIMULATED_UNIVERSE, simulatedHistory, simulatedPrice } from './simulated-market.js';
import { type HistoryRange, type PricePoint, type PriceProvider, UnknownTickerError } from './types.js';

export class SimulatedPriceProvider implements PriceProvider {
  readonly name = 'simulated';

  constructor(
    private readonly clock: Clock,
    private readonly calendar: MarketCalendar,
  ) {}

  private symbol(ticker: string) {
    const s = SIMULATED_UNIVERSE.get(ticker);
    if (!s) throw new UnknownTickerError(ticker);
    return s;
  }

  async quote(ticker: string): Promise<number> {
    return simulatedPrice(this.symbol(ticker), this.clock.now(), this.calendar);
  }

  async history(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    return simulatedHistory(this.symbol(ticker), range, this.clock.now(), this.calendar);
  }
}
