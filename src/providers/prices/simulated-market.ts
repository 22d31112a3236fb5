// The simulated market: every instrument's log price is a Brownian motion (a
// Gaussian random walk with independent increments) drawn from a secret seed,
// so instances that share the seed agree without talking to each other, and
// nobody without it can predict a move from the source or from served history.
//
// Construction (docs/market.md says why):
// - Time is cut into steps of STEP_MS. Crypto steps run around the clock;
//   stocks and ETFs step only during NYSE sessions (the calendar's
//   sessionTime), so outside hours the price is the last close.
// - W(n), the walk at step n, has W(0) = 0 at MARKET_ORIGIN and variance 1 per
//   step; the log price is ln(level) + σ_step·W(n), σ_step being the symbol's
//   annualised volatility scaled to one step (a year is 365.25 days for
//   crypto, 252 sessions of 6.5 h for stocks).
// - Every step index n has one standard normal Z(n), from HMAC-SHA-256(seed,
//   ticker, n): two 53-bit uniforms in (0, 1) from the digest, Box-Muller.
// - Spans: W at multiples of SPAN = 2^SPAN_LEVELS steps is itself a walk away
//   from the origin: W(kS) = W((k∓1)S) + √S·Z(kS). One span covers 136 years of
//   crypto and far more of sessions, so k is 0 or ±1 for any realistic date
//   (the loop over k only costs beyond that).
// - Inside a span (Lévy's construction), the value at a dyadic midpoint m of
//   [a, b] given W(a) and W(b) is the Brownian bridge's: mean (W(a)+W(b))/2,
//   variance (b−a)/4, so W(m) = (W(a)+W(b))/2 + √(b−a)/2·Z(m). Descending
//   halves toward n reaches any step in SPAN_LEVELS draws. The result has
//   exactly the law of a Brownian motion sampled at integer steps: increments
//   are independent N(0, 1), at every scale and across span edges.
// - The price is constant within a step (no interpolation toward the next
//   value, which would reveal its direction) and rounded to cents (to 10⁻⁶
//   below 1 USD).
import { createHmac, randomBytes } from 'node:crypto';
import { isCryptoTicker, type MarketCalendar } from '../../domain/market-calendar.js';
import { INSTRUMENT_UNIVERSE, type UniverseSymbol } from './instrument-universe.js';
import type { HistoryRange, PricePoint } from './types.js';

/** A symbol of the simulated market: a directory entry with its price level and volatility. */
export type SimulatedSymbol = UniverseSymbol;

export const SIMULATED_UNIVERSE: ReadonlyMap<string, SimulatedSymbol> = INSTRUMENT_UNIVERSE;

/** The shortest seed accepted: 32 characters (32 hex digits carry 128 bits). */
export const MIN_MARKET_SEED_LENGTH = 32;

/** A fresh seed for a deployment: 256 random bits, hex. */
export function newMarketSeed(): string {
  return randomBytes(32).toString('hex');
}

export const STEP_MS = 1000;
export const SPAN_LEVELS = 32;
const SPAN = 2 ** SPAN_LEVELS;
/** Where W(0) = 0: every symbol is at its typical level then. */
export const MARKET_ORIGIN = Date.parse('2026-01-01T00:00:00Z');

const MINUTE_MS = 60_000;
const DAY = 86_400_000;
const CRYPTO_YEAR_MS = 365.25 * DAY;
const SESSION_YEAR_MS = 252 * 6.5 * 60 * MINUTE_MS;
const TWO_POW_53 = 2 ** 53;

/** Memoised walk values of one ticker (step index → W), for many nearby prices at once. */
export type WalkCache = Map<number, number>;

function roundPrice(p: number): number {
  return p >= 1 ? Math.round(p * 100) / 100 : Math.round(p * 1e6) / 1e6;
}

export class SimulatedMarket {
  private readonly key: Buffer;
  private readonly originSessionTime: number;
  /** How many normals have been drawn: each costs one HMAC (tests check the logarithmic cost). */
  draws = 0;

  constructor(
    seed: string,
    private readonly calendar: MarketCalendar,
  ) {
    if (seed.length < MIN_MARKET_SEED_LENGTH) throw new Error(`the market seed must be at least ${MIN_MARKET_SEED_LENGTH} characters`);
    this.key = Buffer.from(seed, 'utf8');
    this.originSessionTime = calendar.sessionTime(MARKET_ORIGIN);
  }

  /** Z(n): the standard normal of a ticker's step n. */
  normal(ticker: string, n: number): number {
    this.draws++;
    // The ticker alphabet has no NUL, so the message is unambiguous.
    const d = createHmac('sha256', this.key).update(`paper-bets market v1\0${ticker}\0${n}`).digest();
    // 53 bits each (21 + 32), shifted by a half so 0 and 1 are excluded and ln(u1) is finite.
    const u1 = ((d.readUInt32BE(0) >>> 11) * 2 ** 32 + d.readUInt32BE(4) + 0.5) / TWO_POW_53;
    const u2 = ((d.readUInt32BE(8) >>> 11) * 2 ** 32 + d.readUInt32BE(12) + 0.5) / TWO_POW_53;
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** W(n): the ticker's standard walk at step n (variance 1 a step, W(0) = 0). */
  walk(ticker: string, n: number, cache?: WalkCache): number {
    if (!Number.isSafeInteger(n)) throw new RangeError(`step ${n} is not a safe integer`);
    const lo = Math.floor(n / SPAN) * SPAN;
    let a = lo;
    let b = lo + SPAN;
    let wa = this.spanEnd(ticker, a, cache);
    if (n === a) return wa;
    let wb = this.spanEnd(ticker, b, cache);
    for (;;) {
      const m = a + (b - a) / 2;
      let wm = cache?.get(m);
      if (wm === undefined) {
        wm = (wa + wb) / 2 + (Math.sqrt(b - a) / 2) * this.normal(ticker, m);
        cache?.set(m, wm);
      }
      if (n === m) return wm;
      if (n < m) {
        b = m;
        wb = wm;
      } else {
        a = m;
        wa = wm;
      }
    }
  }

  /** W at a multiple of SPAN: a walk of whole spans away from the origin. */
  private spanEnd(ticker: string, n: number, cache?: WalkCache): number {
    if (n === 0) return 0;
    const known = cache?.get(n);
    if (known !== undefined) return known;
    const dir = n > 0 ? 1 : -1;
    let w = 0;
    for (let k = dir * SPAN; ; k += dir * SPAN) {
      w += Math.sqrt(SPAN) * this.normal(ticker, k);
      if (k === n) break;
    }
    cache?.set(n, w);
    return w;
  }

  /** The step in force at t: counted in wall time for crypto, in session time for stocks and ETFs. */
  stepAt(symbol: SimulatedSymbol, t: number): number {
    const elapsed = isCryptoTicker(symbol.ticker) ? t - MARKET_ORIGIN : this.calendar.sessionTime(t) - this.originSessionTime;
    return Math.floor(elapsed / STEP_MS);
  }

  /** The standard deviation of one step's move in log price. */
  stepVolatility(symbol: SimulatedSymbol): number {
    const year = isCryptoTicker(symbol.ticker) ? CRYPTO_YEAR_MS : SESSION_YEAR_MS;
    return symbol.volatility * Math.sqrt(STEP_MS / year);
  }

  /** The price of a universe symbol at t (epoch ms), unrounded. */
  exactPrice(symbol: SimulatedSymbol, t: number, cache?: WalkCache): number {
    return symbol.price * Math.exp(this.stepVolatility(symbol) * this.walk(symbol.ticker, this.stepAt(symbol, t), cache));
  }

  /** The price of a universe symbol at t (epoch ms), as quoted. */
  price(symbol: SimulatedSymbol, t: number, cache?: WalkCache): number {
    return roundPrice(this.exactPrice(symbol, t, cache));
  }

  /**
   * Points for a chart, oldest first, ending at the current price. For stocks
   * the window ends at the last market instant (a weekend still shows the last
   * sessions) and closed hours collapse into one point instead of a flat line.
   */
  history(symbol: SimulatedSymbol, range: HistoryRange, now: number): PricePoint[] {
    const { span, step } = HISTORY_RANGES[range];
    const crypto = isCryptoTicker(symbol.ticker);
    const end = crypto ? now : this.calendar.marketTime(now);
    const cache: WalkCache = new Map();
    // The last close of each closed stretch, by its session time: marketTime once per closure, not per point.
    const closes = new Map<number, number>();
    const points: PricePoint[] = [];
    let lastAt = Number.NaN;
    for (let t = Math.ceil((end - span) / step) * step; t < end; t += step) {
      let at = t;
      if (!crypto && !this.calendar.isMarketOpen(t)) {
        const session = this.calendar.sessionTime(t);
        at = closes.get(session) ?? this.calendar.marketTime(t);
        closes.set(session, at);
      }
      if (at === lastAt) continue;
      lastAt = at;
      points.push({ t: at, price: this.price(symbol, at, cache) });
    }
    if (end !== lastAt) points.push({ t: end, price: this.price(symbol, end, cache) });
    return points;
  }
}

export const HISTORY_RANGES: Record<HistoryRange, { span: number; step: number }> = {
  '1d': { span: DAY, step: 5 * MINUTE_MS },
  '5d': { span: 5 * DAY, step: 30 * MINUTE_MS },
  '1m': { span: 30 * DAY, step: 2 * 60 * MINUTE_MS },
  '3m': { span: 90 * DAY, step: 6 * 60 * MINUTE_MS },
  '1y': { span: 365 * DAY, step: DAY },
};
