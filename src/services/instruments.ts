// The instrument directory as requests see it: the provider's instruments
// searched and paged, each with its market hours and a dated quote; and one
// instrument with its chart, built from one quote so the chart's last point
// is the headline price.
import type { AppContext } from '../context.js';
import { dailyChange, type InstrumentInfo, marketHours, searchInstruments } from '../domain/instruments.js';
import { notFound, serviceUnavailable } from '../errors.js';
import { type HistoryRange, PriceUnavailableError, type QuoteSnapshot, UnknownTickerError } from '../providers/prices/types.js';
import type { Instrument, InstrumentChartResponse, InstrumentListResponse, InstrumentQuote } from '../schemas/instruments.js';
import type { Consensus } from '../domain/consensus.js';
import { iso } from './bet-views.js';
import { type ConsensusDeps, everyConsensus } from './consensus.js';
import { cachedChart, endingAtQuote, PRICE_RETRY_AFTER_SECONDS, type QuoteSource, tickerOrBadRequest } from './price-requests.js';

/** The part of the context this module uses. */
export type InstrumentDeps = Pick<AppContext, 'clock' | 'config' | 'prices'>;
/** What sorting the directory by consensus adds. */
export type DirectoryDeps = InstrumentDeps & ConsensusDeps;
export type DirectorySort = 'relevance' | 'consensus';

function quoteView(s: QuoteSnapshot): InstrumentQuote {
  const change = dailyChange(s.price, s.previousClose);
  return {
    price: s.price,
    as_of: iso(s.at),
    previous_close: s.previousClose,
    change: change?.change ?? null,
    change_percent: change?.changePercent ?? null,
  };
}

function instrumentView(ctx: InstrumentDeps, info: InstrumentInfo, snapshot: QuoteSnapshot | null): Instrument {
  const hours = marketHours(ctx.config.marketCalendar, info.symbol, ctx.clock.now());
  return {
    symbol: info.symbol,
    name: info.name,
    kind: info.kind,
    exchange: info.exchange,
    market: {
      open: hours.open,
      next_open: hours.nextOpen === null ? null : iso(hours.nextOpen),
      next_close: hours.nextClose === null ? null : iso(hours.nextClose),
    },
    quote: snapshot ? quoteView(snapshot) : null,
  };
}

/** A page of the directory; an instrument whose quote fails is listed with quote null rather than failing the page. */
export async function listInstruments(
  ctx: DirectoryDeps,
  q: string,
  limit: number,
  offset: number,
  sort: DirectorySort = 'relevance',
  source: QuoteSource = 'provider',
): Promise<InstrumentListResponse> {
  let matches = searchInstruments(ctx.prices.instruments(), q);
  if (sort === 'consensus') matches = byConsensus(matches, await everyConsensus(ctx));
  const page = matches.slice(offset, offset + limit);
  const quoteOf = (symbol: string) => (source === 'cache' ? ctx.prices.cachedSnapshot(symbol) : ctx.prices.snapshot(symbol));
  const instruments = await Promise.all(page.map(async (info) => instrumentView(ctx, info, await quoteOf(info.symbol).catch(() => null))));
  return { instruments, total: matches.length };
}

/** Highest weighted long share first; those without a weighted figure after, in the order given (the sort is stable). */
function byConsensus(matches: readonly InstrumentInfo[], all: ReadonlyMap<string, Consensus>): InstrumentInfo[] {
  const share = (i: InstrumentInfo) => all.get(i.symbol)?.weighted.long_percent ?? -1;
  return [...matches].sort((a, b) => share(b) - share(a));
}

/** One instrument with the chart of a range; 400 badly formed, 404 not in the directory, 503 provider down. */
export async function instrumentChart(
  ctx: InstrumentDeps,
  rawSymbol: string,
  range: HistoryRange,
  source: QuoteSource = 'provider',
): Promise<InstrumentChartResponse> {
  const symbol = tickerOrBadRequest(rawSymbol);
  const info = ctx.prices.instruments().find((i) => i.symbol === symbol);
  if (!info) throw notFound(`Unknown instrument ${symbol}`);
  if (source === 'cache') {
    // What the cache holds, quote null when it holds none: a visitor's look never asks the provider.
    const cached = await cachedChart(ctx, symbol, range).catch((err: unknown) => {
      if (err instanceof UnknownTickerError) throw notFound(`Unknown instrument ${symbol}`);
      throw err;
    });
    return {
      instrument: instrumentView(ctx, info, cached.quote),
      range,
      points: cached.points.slice(-1000).map((p) => ({ t: iso(p.t), price: p.price })),
    };
  }
  let snapshot: QuoteSnapshot;
  let history: { t: number; price: number }[];
  try {
    snapshot = await ctx.prices.snapshot(symbol);
    history = ctx.prices.history ? await ctx.prices.history(symbol, range) : [];
  } catch (err) {
    if (err instanceof UnknownTickerError) throw notFound(`Unknown instrument ${symbol}`);
    if (err instanceof PriceUnavailableError) throw serviceUnavailable('Price provider unavailable, retry shortly', PRICE_RETRY_AFTER_SECONDS);
    throw err;
  }
  // The quote is the last point: the chart ends exactly where the headline stands.
  const points = endingAtQuote(history, snapshot);
  return {
    instrument: instrumentView(ctx, info, snapshot),
    range,
    points: points.slice(-1000).map((p) => ({ t: iso(p.t), price: p.price })),
  };
}
