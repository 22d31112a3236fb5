// Instrument directory rules with no I/O: searching the directory by symbol
// or name, when an instrument's market opens and closes, and the daily change.
import { DateTime } from 'luxon';
import { isCryptoTicker, type MarketCalendar, NYSE_ZONE, nyseCloseOf } from './market-calendar.js';

export type InstrumentKind = 'stock' | 'etf' | 'crypto';

/** What the directory says about a symbol (no price). */
export interface InstrumentInfo {
  symbol: string;
  name: string;
  kind: InstrumentKind;
  exchange: string;
}

/** The longest search text accepted. */
export const INSTRUMENT_QUERY_MAX = 50;

/** Lower-cased, accents kept, runs of spaces folded: "  Apple  Inc " → "apple inc". */
function fold(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * How well an instrument matches a search, lower is better, null for no
 * match: the exact symbol, the exact name, then a symbol prefix, then a name
 * whose word starts with the text, then a name containing it. The empty
 * search matches all.
 */
export function matchRank(info: InstrumentInfo, query: string): number | null {
  const q = fold(query);
  if (q === '') return 5;
  const symbol = info.symbol.toLowerCase();
  const name = fold(info.name);
  if (symbol === q) return 0;
  if (name === q) return 1;
  if (symbol.startsWith(q)) return 2;
  if (name.startsWith(q) || name.includes(` ${q}`)) return 3;
  if (name.includes(q)) return 4;
  return null;
}

/** The directory filtered by a search, best matches first, then stocks, ETFs and crypto, then by symbol. */
export function searchInstruments<T extends InstrumentInfo>(all: readonly T[], query: string): T[] {
  const kindOrder: Record<InstrumentKind, number> = { stock: 0, etf: 1, crypto: 2 };
  return all
    .map((info) => ({ info, rank: matchRank(info, query) }))
    .filter((m): m is { info: T; rank: number } => m.rank !== null)
    .sort((a, b) => a.rank - b.rank || kindOrder[a.info.kind] - kindOrder[b.info.kind] || a.info.symbol.localeCompare(b.info.symbol))
    .map((m) => m.info);
}

/** Whether a market is open at t, and its next open and close (null for crypto, which never closes). */
export interface MarketHours {
  open: boolean;
  nextOpen: number | null;
  nextClose: number | null;
}

const SESSION_MS = 6.5 * 3_600_000;

function nyDate(t: number): string {
  return DateTime.fromMillis(t, { zone: NYSE_ZONE }).toISODate() as string;
}

function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

/** The 9:30 New York open of a date: its 16:00 close less the session (clocks never change between the two). */
export function nyseOpenOf(date: string): number {
  return nyseCloseOf(date) - SESSION_MS;
}

/** The trading day before a date. */
export function previousTradingDay(calendar: MarketCalendar, date: string): string {
  let d = addDays(date, -1);
  while (!calendar.isTradingDay(d)) d = addDays(d, -1);
  return d;
}

export function marketHours(calendar: MarketCalendar, symbol: string, t: number): MarketHours {
  if (isCryptoTicker(symbol)) return { open: true, nextOpen: null, nextClose: null };
  const today = nyDate(t);
  if (calendar.isMarketOpen(t)) {
    return { open: true, nextOpen: nyseOpenOf(calendar.tradingDayOnOrAfter(addDays(today, 1))), nextClose: nyseCloseOf(today) };
  }
  // Closed: today's session if it has not begun yet, else the next trading day's.
  let day = calendar.tradingDayOnOrAfter(today);
  if (nyseOpenOf(day) <= t) day = calendar.tradingDayOnOrAfter(addDays(day, 1));
  return { open: false, nextOpen: nyseOpenOf(day), nextClose: nyseCloseOf(day) };
}

/**
 * The instant whose price a daily change is measured from, for a quote taken
 * at `at`: stocks and ETFs, the close of the trading day before the session
 * of `at` (a quote at a close belongs to that day's session); crypto, which
 * has no close, 24 hours earlier.
 */
export function dailyChangeBase(calendar: MarketCalendar, symbol: string, at: number): number {
  if (isCryptoTicker(symbol)) return at - 86_400_000;
  return stockChangeBase(calendar, at);
}

/** dailyChangeBase of every stock and ETF: the close of the trading day before the session of `at`. */
export function stockChangeBase(calendar: MarketCalendar, at: number): number {
  return nyseCloseOf(previousTradingDay(calendar, nyDate(at)));
}

/** Change from the previous close, absolute and in percent (rounded to 2 decimals); null without one. */
export function dailyChange(price: number, previousClose: number | null): { change: number; changePercent: number } | null {
  if (previousClose === null || !(previousClose > 0)) return null;
  const change = price - previousClose;
  return { change: roundTo(change, price < 1 ? 6 : 2), changePercent: roundTo((change / previousClose) * 100, 2) };
}

function roundTo(n: number, digits: number): number {
  const f = 10 ** digits;
  const r = Math.round(n * f) / f;
  return Object.is(r, -0) ? 0 : r;
}
