// Symbols the generated bets use, at the simulated market's typical price
// levels, so entry and exit prices look like the service's own.
import { SIMULATED_UNIVERSE } from '../../src/providers/prices/simulated-market.js';

const SYMBOLS = [
  'AAPL',
  'MSFT',
  'NVDA',
  'AMZN',
  'GOOGL',
  'META',
  'TSLA',
  'BRK.B',
  'AVGO',
  'JPM',
  'BTC-USD',
  'ETH-USD',
  'SOL-USD',
  'AMD',
  'NFLX',
  'COIN',
  'SPY',
  'QQQ',
];

export const TICKERS: ReadonlyArray<{ ticker: string; price: number }> = SYMBOLS.map((ticker) => {
  const symbol = SIMULATED_UNIVERSE.get(ticker);
  if (!symbol) throw new Error(`bench ticker ${ticker} is not in the simulated universe`);
  return { ticker, price: symbol.price };
});

/** The ticker GET /price/{ticker} is measured on. */
export const PRICE_TICKER = 'AAPL';
