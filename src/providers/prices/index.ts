// The configured price provider.
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import { FinnhubPriceProvider } from './finnhub.js';
import { SimulatedPriceProvider } from './simulated.js';
import type { PriceProvider } from './types.js';

export { newMarketSeed } from './simulated-market.js';

/** marketSeed: the simulated market's secret (config.marketSeed, else the one stored in the database). */
export function createPriceProvider(config: Config, clock: Clock, marketSeed: string): PriceProvider {
  const p = config.prices;
  if (p.provider === 'finnhub') {
    if (!p.finnhubApiKey) throw new Error('PRICE_PROVIDER=finnhub needs FINNHUB_API_KEY');
    return new FinnhubPriceProvider({
      apiUrl: p.finnhubApiUrl,
      apiKey: p.finnhubApiKey,
      timeoutMs: p.timeoutMs,
      clock,
      calendar: config.marketCalendar,
    });
  }
  return new SimulatedPriceProvider(clock, config.marketCalendar, marketSeed);
}
