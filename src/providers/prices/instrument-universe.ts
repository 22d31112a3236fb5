// The instrument directory shipped with the service (simulated-universe.json):
// real symbols with their name, kind and exchange, plus the simulated market's
// price level and volatility. Both providers list these instruments; the
// Finnhub adapter quotes them live.
import fs from 'node:fs';
import type { InstrumentInfo, InstrumentKind } from '../../domain/instruments.js';

export interface UniverseSymbol {
  ticker: string;
  name: string;
  kind: InstrumentKind;
  exchange: string;
  /** Typical price level in USD: the simulated price at MARKET_ORIGIN. */
  price: number;
  /** Annualised volatility (0.3 = 30 %). */
  volatility: number;
}

export const INSTRUMENT_UNIVERSE: ReadonlyMap<string, UniverseSymbol> = new Map(
  (
    JSON.parse(fs.readFileSync(new URL('./simulated-universe.json', import.meta.url), 'utf8')) as {
      symbols: UniverseSymbol[];
    }
  ).symbols.map((s) => [s.ticker, s]),
);

/** The directory entries, in the file's order. */
export const UNIVERSE_INSTRUMENTS: readonly InstrumentInfo[] = [...INSTRUMENT_UNIVERSE.values()].map((s) => ({
  symbol: s.ticker,
  name: s.name,
  kind: s.kind,
  exchange: s.exchange,
}));
