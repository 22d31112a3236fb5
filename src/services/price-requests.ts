// Prices as requests see them: ticker validation (400), unknown tickers (404)
// and provider failures (503 with Retry-After), for /price, its history and
// opening bets.
import type { AppContext } from '../context.js';
import { normalizeTicker } from '../domain/bets.js';
import { badRequest, notFound, serviceUnavailable } from '../errors.js';
import {
  type HistoryRange,
  type PricePoint,
  PriceUnavailableError,
  type PublishedQuote,
  type QuoteSnapshot,
  UnknownTickerError,
} from '../providers/prices/types.js';
import type { PriceHistoryResponse } from '../schemas/bets.js';
import { iso } from './bet-views.js';

/** What fetching a price for a request uses of the context. */
export type PriceRequestDeps = Pick<AppContext, 'prices'>;

/**
 * Where a read's quotes come from: the provider behind the shared cache (a
 * signed-in caller), or the cache alone (a visitor, DESIGN: an anonymous
 * request never spends the provider's quota; it sees the quotes others' reads
 * already published).
 */
export type QuoteSource = 'provider' | 'cache';

/** A signed-in caller's reads may ask the provider; a visitor's read the cache alone. */
export function quoteSourceOf(request: { principal: unknown }): QuoteSource {
  return request.principal ? 'provider' : 'cache';
}

/** Seconds a client should wait before retrying when the price provider is down. */
export const PRICE_RETRY_AFTER_SECONDS = 5;

/** The stored form of a ticker from a client, or 400 when badly formed. */
export function tickerOrBadRequest(raw: string): string {
  const ticker = normalizeTicker(raw);
  if (!ticker) throw badRequest('Invalid ticker: 1 to 15 of A-Z, 0-9, "." and "-", starting with a letter or digit');
  return ticker;
}

/** The current price for a request that needs it now: unknown ticker 404, provider down 503 with Retry-After. */
export async function priceOrUnavailable(ctx: PriceRequestDeps, ticker: string): Promise<number> {
  try {
    return await ctx.prices.current(ticker);
  } catch (err) {
    throw priceFailure(err, ticker);
  }
}

/** The published quote in force for a request that needs it now (its price and instant): 404 unknown, 503 provider down. */
export async function quoteOrUnavailable(ctx: PriceRequestDeps, ticker: string): Promise<PublishedQuote> {
  try {
    return await ctx.prices.quote(ticker);
  } catch (err) {
    throw priceFailure(err, ticker);
  }
}

/** Unknown ticker 404, provider down 503 with Retry-After; anything else as it was. */
function priceFailure(err: unknown, ticker: string): unknown {
  if (err instanceof UnknownTickerError) return notFound(`Unknown ticker ${ticker}`);
  if (err instanceof PriceUnavailableError) {
    return serviceUnavailable('Price provider unavailable, retry shortly', PRICE_RETRY_AFTER_SECONDS);
  }
  return err;
}

/**
 * A chart that ends at the published quote in force: no point after it (the
 * provider's history runs to now, ahead of the quote a bet would get), and the
 * quote itself as the last point.
 */
export function endingAtQuote(points: readonly PricePoint[], quote: PublishedQuote): PricePoint[] {
  return [...points.filter((p) => p.t < quote.at), { t: quote.at, price: quote.price }];
}

/**
 * A chart from the cache alone: the cached points ending at the cached quote,
 * no points without a cached quote (the cached chart may run past any quote
 * published), and UnknownTickerError when the cache knows the ticker is unknown.
 */
export async function cachedChart(
  ctx: PriceRequestDeps,
  ticker: string,
  range: HistoryRange,
): Promise<{ quote: QuoteSnapshot | null; points: PricePoint[] }> {
  const [quote, points] = await Promise.all([ctx.prices.cachedSnapshot(ticker), ctx.prices.cachedHistory(ticker, range)]);
  return { quote, points: quote ? endingAtQuote(points ?? [], quote) : [] };
}

export async function tickerHistory(
  ctx: PriceRequestDeps,
  rawTicker: string,
  range: HistoryRange,
  source: QuoteSource = 'provider',
): Promise<PriceHistoryResponse> {
  const ticker = tickerOrBadRequest(rawTicker);
  if (source === 'cache') {
    // Without the provider, the directory says which tickers exist (a provider without one answers what its cache holds).
    const directory = ctx.prices.instruments();
    if (directory.length > 0 && !directory.some((i) => i.symbol === ticker)) throw notFound(`Unknown ticker ${ticker}`);
    try {
      const { points } = await cachedChart(ctx, ticker, range);
      return { ticker, points: points.map((p) => ({ t: iso(p.t), price: p.price })) };
    } catch (err) {
      throw priceFailure(err, ticker);
    }
  }
  if (!ctx.prices.history) throw serviceUnavailable('Price history unavailable', PRICE_RETRY_AFTER_SECONDS);
  try {
    // The dated quote, as the instrument page's: a closed market's quote is dated at its last close (no point while it is closed).
    const [points, quote] = await Promise.all([ctx.prices.history(ticker, range), ctx.prices.snapshot(ticker)]);
    return { ticker, points: endingAtQuote(points, quote).map((p) => ({ t: iso(p.t), price: p.price })) };
  } catch (err) {
    throw priceFailure(err, ticker);
  }
}
