// PRICE_PROVIDER=finnhub: Finnhub's quote and candle APIs. Every failure
// (time-out, non-2xx, malformed body) becomes PriceUnavailableError; a quote
// with c = 0 is Finnhub's answer for a symbol it does not know. The instrument
// directory is the shipped universe (instrument-universe.ts): Finnhub's own
// symbol lists are per exchange and far larger than a browsing page needs.
import type { InstrumentInfo } from '../../domain/instruments.js';
import { isCryptoTicker, type MarketCalendar } from '../../domain/market-calendar.js';
import type { Clock } from '../../lib/clock.js';
import { UNIVERSE_INSTRUMENTS } from './instrument-universe.js';
import { HISTORY_RANGES } from './simulated-market.js';
import { type HistoryRange, type PricePoint, type PriceProvider, PriceUnavailableError, type QuoteSnapshot, UnknownTickerError } from './types.js';

export interface FinnhubOptions {
  apiUrl: string;
  apiKey: string;
  timeoutMs: number;
  clock: Clock;
  /** NYSE hours: a stock's price at an instant outside them is the price at the last close. */
  calendar: MarketCalendar;
}

/** Our symbols in Finnhub's spelling: crypto pairs quote on Binance against USDT. */
export function finnhubSymbol(ticker: string): string {
  if (isCryptoTicker(ticker)) return `BINANCE:${ticker.replace(/-USDT?$/, '')}USDT`;
  return ticker;
}

const RESOLUTION: Record<HistoryRange, string> = { '1d': '5', '5d': '30', '1m': '60', '3m': 'D', '1y': 'D' };
const MINUTE_S = 60;
/** How far back the minute candles before an instant are asked for (a quiet crypto pair may skip minutes). */
const PRICE_AT_LOOKBACK_S = 3600;

export class FinnhubPriceProvider implements PriceProvider {
  readonly name = 'finnhub';

  constructor(private readonly opts: FinnhubOptions) {}

  private async get(ticker: string, path: string, params: Record<string, string>): Promise<unknown> {
    const url = new URL(`${this.opts.apiUrl}${path}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { 'x-finnhub-token': this.opts.apiKey, accept: 'application/json' },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? 'time-out' : 'network error';
      throw new PriceUnavailableError(ticker, reason);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new PriceUnavailableError(ticker, `HTTP ${res.status}`);
    }
    try {
      return await res.json();
    } catch {
      throw new PriceUnavailableError(ticker, 'malformed body');
    }
  }

  /** Our directory: the shipped universe's symbols, which Finnhub quotes live. */
  instruments(): readonly InstrumentInfo[] {
    return UNIVERSE_INSTRUMENTS;
  }

  async quote(ticker: string): Promise<number> {
    return (await this.snapshot(ticker)).price;
  }

  /** Finnhub's quote: c (current), pc (previous close; for crypto, Binance's day open at 00:00 UTC), t (seconds of the last trade). */
  async snapshot(ticker: string): Promise<QuoteSnapshot> {
    const body = (await this.get(ticker, '/quote', { symbol: finnhubSymbol(ticker) })) as { c?: unknown; pc?: unknown; t?: unknown } | null;
    const c = body?.c;
    if (typeof c !== 'number' || !Number.isFinite(c) || c < 0) throw new PriceUnavailableError(ticker, 'malformed body');
    if (c === 0) throw new UnknownTickerError(ticker);
    const pc = body?.pc;
    const t = body?.t;
    const now = this.opts.clock.now();
    // A trade time in the future (clock skew) or missing reads as now.
    const at = typeof t === 'number' && Number.isFinite(t) && t > 0 ? Math.min(t * 1000, now) : now;
    return { price: c, at, previousClose: typeof pc === 'number' && Number.isFinite(pc) && pc > 0 ? pc : null };
  }

  async history(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
    const to = Math.floor(this.opts.clock.now() / 1000);
    const from = to - Math.floor(HISTORY_RANGES[range].span / 1000);
    const points = await this.candles(ticker, RESOLUTION[range], from, to);
    if (points.length === 0) throw new UnknownTickerError(ticker);
    return points.map((p) => ({ t: p.start * 1000, price: p.close }));
  }

  /**
   * The close of the last minute candle finished by the instant; for a stock,
   * the instant is first moved back to the last moment the market was open
   * (the price stands still while it is closed). A candle still running at
   * the instant is used only when none before it finished.
   */
  async priceAt(ticker: string, at: number): Promise<number> {
    if (at > this.opts.clock.now()) throw new PriceUnavailableError(ticker, 'an instant in the future');
    const market = isCryptoTicker(ticker) ? at : this.opts.calendar.marketTime(at);
    const to = Math.floor(market / 1000);
    const candles = (await this.candles(ticker, '1', to - PRICE_AT_LOOKBACK_S, to)).filter((c) => c.start <= to);
    const finished = candles.filter((c) => c.start + MINUTE_S <= to);
    const last = finished.at(-1) ?? candles.at(-1);
    if (!last) throw new PriceUnavailableError(ticker, `no trade in the hour before ${new Date(market).toISOString()}`);
    return last.close;
  }

  /** Candles (start in epoch seconds, close) oldest first; none when Finnhub has no data in the range. */
  private async candles(ticker: string, resolution: string, from: number, to: number): Promise<Array<{ start: number; close: number }>> {
    const path = isCryptoTicker(ticker) ? '/crypto/candle' : '/stock/candle';
    const body = (await this.get(ticker, path, {
      symbol: finnhubSymbol(ticker),
      resolution,
      from: String(from),
      to: String(to),
    })) as { s?: unknown; t?: unknown; c?: unknown } | null;
    if (body?.s === 'no_data') return [];
    const { t, c } = body ?? {};
    if (body?.s !== 'ok' || !Array.isArray(t) || !Array.isArray(c) || t.length !== c.length) {
      throw new PriceUnavailableError(ticker, 'malformed body');
    }
    const out = t.map((sec, i) => {
      const close = c[i];
      if (typeof sec !== 'number' || typeof close !== 'number') throw new PriceUnavailableError(ticker, 'malformed body');
      return { start: sec, close };
    });
    return out.sort((a, b) => a.start - b.start);
  }
}
