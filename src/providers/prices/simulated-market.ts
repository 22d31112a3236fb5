// The simulated market: a deterministic price for every (ticker, instant), so
// several instances agree without talking to each other. The log-price is a
// sum of smooth noise octaves (1 minute up to about half a year), each scaled
// like a random walk over its period (volatility × √period), so the price
// wanders visibly within minutes and plausibly over months around the
// ticker's level. Stocks and ETFs stand still outside NYSE hours.
import fs from 'node:fs';
import { isCryptoTicker, type MarketCalendar } from '../../domain/market-calendar.js';
import type { HistoryRange, PricePoint } from './types.js';

export interface SimulatedSymbol {
  ticker: string;
  name: string;
  kind: 'stock' | 'etf' | 'crypto';
  /** Typical price level in USD. */
  price: number;
  /** Annualised volatility (0.3 = 30 %). */
  volatility: number;
}

export const SIMULATED_UNIVERSE: ReadonlyMap<string, SimulatedSymbol> = new Map(
  (
    JSON.parse(fs.readFileSync(new URL('./simulated-universe.json', import.meta.url), 'utf8')) as {
      symbols: SimulatedSymbol[];
    }
  ).symbols.map((s) => [s.ticker, s]),
);

const MINUTE_MS = 60_000;
const YEAR_MS = 365.25 * 86_400_000;
const OCTAVES = 10; // periods 1 min × 4^k: 1 min … 182 days

function seedOf(ticker: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ticker.length; i++) h = Math.imul(h ^ ticker.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A uniform value in [-1, 1] for a lattice point, from an integer hash. */
function lattice(seed: number, octave: number, index: number): number {
  let h = seed ^ Math.imul(octave + 1, 0x9e3779b1) ^ Math.imul(index | 0, 0x85ebca6b) ^ Math.imul(Math.floor(index / 2 ** 32), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  h ^= h >>> 16;
  return ((h >>> 0) / 0xffffffff) * 2 - 1;
}

/** Smooth (cosine-interpolated) noise between lattice points. */
function smoothNoise(seed: number, octave: number, x: number): number {
  const i = Math.floor(x);
  const f = x - i;
  const w = (1 - Math.cos(f * Math.PI)) / 2;
  return lattice(seed, octave, i) * (1 - w) + lattice(seed, octave, i + 1) * w;
}

function roundPrice(p: number): number {
  return p >= 1 ? Math.round(p * 100) / 100 : Math.round(p * 1e6) / 1e6;
}

/** The price of a universe symbol at t (epoch ms); pure. */
export function simulatedPrice(symbol: SimulatedSymbol, t: number, calendar: MarketCalendar): number {
  const at = isCryptoTicker(symbol.ticker) ? t : calendar.marketTime(t);
  const seed = seedOf(symbol.ticker);
  let logMove = 0;
  for (let k = 0; k < OCTAVES; k++) {
    const period = MINUTE_MS * 4 ** k;
    // Uniform noise has standard deviation 1/√3; scale it back to one σ per period.
    logMove += smoothNoise(seed, k, at / period) * Math.sqrt(3) * symbol.volatility * Math.sqrt(period / YEAR_MS) * 0.5;
  }
  return roundPrice(symbol.price * Math.exp(logMove));
}

const DAY = 86_400_000;
export const HISTORY_RANGES: Record<HistoryRange, { span: number; step: number }> = {
  '1d': { span: DAY, step: 5 * MINUTE_MS },
  '5d': { span: 5 * DAY, step: 30 * MINUTE_MS },
  '1m': { span: 30 * DAY, step: 2 * 60 * MINUTE_MS },
  '3m': { span: 90 * DAY, step: 6 * 60 * MINUTE_MS },
  '1y': { span: 365 * DAY, step: DAY },
};

/**
 * Points for a chart, oldest first, ending at the current price. For stocks
 * the window ends at the last market instant (a weekend still shows the last
 * sessions) and closed hours collapse into one point instead of a flat line.
 */
export function simulatedHistory(symbol: SimulatedSymbol, range: HistoryRange, now: number, calendar: MarketCalendar): PricePoint[] {
  const { span, step } = HISTORY_RANGES[range];
  const crypto = isCryptoTicker(symbol.ticker);
  const end = crypto ? now : calendar.marketTime(now);
  const points: PricePoint[] = [];
  let lastAt = Number.NaN;
  for (let t = Math.ceil((end - span) / step) * step; t < end; t += step) {
    const at = crypto ? t : calendar.marketTime(t);
    if (at === lastAt) continue;
    lastAt = at;
    points.push({ t: at, price: simulatedPrice(symbol, at, calendar) });
  }
  if (end !== lastAt) points.push({ t: end, price: simulatedPrice(symbol, end, calendar) });
  return points;
}
