// The skill-weighted consensus of an instrument's holders and the record of
// its calls (docs/consensus.md): pure rules, no I/O.
import { DateTime } from 'luxon';
import type { Direction } from './bets.js';
import { isCryptoTicker, type MarketCalendar, NYSE_ZONE, nyseCloseOf } from './market-calendar.js';
import { skillOf } from './rankings.js';

export type ConsensusCall = 'long' | 'short' | 'none';
export const CONSENSUS_CALLS: readonly ConsensusCall[] = ['long', 'short', 'none'];
/** The latest calls an answer lists beside the record. */
export const RECENT_CALLS = 10;

/** One live holder of one side of an instrument, with their ranked alpha sums over the rankings' default window. */
export interface Holder {
  userId: number;
  direction: Direction;
  /** Ranked bets with alpha in the window, and their alphas summed and squared-summed (zeros without any). */
  n: number;
  sum: number;
  sumSq: number;
}

/**
 * A holder's weight: their ranked skill in the rankings' default window, or 0
 * when it is not positive or they have no ranked bet with alpha there. Fresh
 * accounts and closes inside the cancel window have no ranked alpha, so they
 * weigh nothing.
 */
export function weightOf(h: Pick<Holder, 'n' | 'sum' | 'sumSq'>): number {
  const s = skillOf({ n: h.n, sum: h.sum, sumSq: h.sumSq });
  return s === null ? 0 : Math.max(s.skill, 0);
}

export interface Consensus {
  /** Distinct live users holding an open bet on each side, unweighted. */
  raw: { long: number; short: number };
  weighted: {
    /** Distinct holders with a positive weight. */
    holders: number;
    /** Summed weights of each side; null below the minimum of weighted holders. */
    long: number | null;
    short: number | null;
    /** long / (long + short) × 100; null below the minimum. */
    long_percent: number | null;
    call: ConsensusCall;
  };
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * The consensus of one instrument's holders. A user holding both sides counts
 * on both (their weight too, which then moves neither side's share). The
 * weighted figure shows only from minWeighted holders with a positive weight;
 * its call is the heavier side, none on a tie.
 */
export function consensusOf(holders: readonly Holder[], minWeighted: number): Consensus {
  const sides = { LONG: new Set<number>(), SHORT: new Set<number>() };
  const weights = { LONG: 0, SHORT: 0 };
  const weighted = new Set<number>();
  for (const h of holders) {
    if (sides[h.direction].has(h.userId)) continue;
    sides[h.direction].add(h.userId);
    const w = weightOf(h);
    if (w > 0) {
      weights[h.direction] += w;
      weighted.add(h.userId);
    }
  }
  const raw = { long: sides.LONG.size, short: sides.SHORT.size };
  if (weighted.size === 0 || weighted.size < minWeighted) {
    return { raw, weighted: { holders: weighted.size, long: null, short: null, long_percent: null, call: 'none' } };
  }
  const total = weights.LONG + weights.SHORT;
  const call: ConsensusCall = weights.LONG > weights.SHORT ? 'long' : weights.SHORT > weights.LONG ? 'short' : 'none';
  return {
    raw,
    weighted: {
      holders: weighted.size,
      long: round(weights.LONG, 4),
      short: round(weights.SHORT, 4),
      long_percent: round((weights.LONG / total) * 100, 2),
      call,
    },
  };
}

const DAY_MS = 86_400_000;

function nyDate(t: number): string {
  return DateTime.fromMillis(t, { zone: NYSE_ZONE }).toISODate() as string;
}

function shiftDate(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

/**
 * An instrument's daily close at or before t: stocks and ETFs the 16:00 New
 * York close of a NYSE trading day, crypto 00:00 UTC.
 */
export function closeAtOrBefore(calendar: MarketCalendar, ticker: string, t: number): number {
  if (isCryptoTicker(ticker)) return Math.floor(t / DAY_MS) * DAY_MS;
  for (let date = nyDate(t); ; date = shiftDate(date, -1)) {
    if (calendar.isTradingDay(date) && nyseCloseOf(date) <= t) return nyseCloseOf(date);
  }
}

/**
 * Each ticker's close at or before t (closeAtOrBefore). Every stock and ETF
 * closes with the NYSE, so theirs is worked out once: in luxon's time zones
 * it costs about half a millisecond, and the consensus job asked it for each
 * of a hundred instruments in one turn of the event loop (60 ms).
 */
export function closesAtOrBefore(calendar: MarketCalendar, tickers: Iterable<string>, t: number): Map<string, number> {
  let nyse: number | undefined;
  const closes = new Map<string, number>();
  for (const ticker of tickers) {
    if (isCryptoTicker(ticker)) {
      closes.set(ticker, closeAtOrBefore(calendar, ticker, t));
      continue;
    }
    nyse ??= closeAtOrBefore(calendar, ticker, t);
    closes.set(ticker, nyse);
  }
  return closes;
}

/** The instrument's first daily close after t. */
export function closeAfter(calendar: MarketCalendar, ticker: string, t: number): number {
  if (isCryptoTicker(ticker)) return (Math.floor(t / DAY_MS) + 1) * DAY_MS;
  for (let date = nyDate(t); ; date = shiftDate(date, 1)) {
    if (calendar.isTradingDay(date) && nyseCloseOf(date) > t) return nyseCloseOf(date);
  }
}

/** One stored call with its outcome: the price at its close and at the next close (null until then). */
export interface RecordedCall {
  call: ConsensusCall;
  closePrice: number;
  nextPrice: number | null;
}

/** The move from a call's close to the next close, percent; null until the next close's price is known. */
export function nextDayMove(c: RecordedCall): number | null {
  if (c.nextPrice === null || !(c.closePrice > 0)) return null;
  return ((c.nextPrice - c.closePrice) / c.closePrice) * 100;
}

export interface TrackRecord {
  /** Long or short calls whose next close has passed. */
  calls: number;
  /** Of those, calls the next day's move went the way of (a flat day is a miss). */
  hits: number;
  hit_rate: number | null;
  /** Mean next-day move in the called direction (a short call's move negated), percent: what following the calls made. */
  average_move_percent: number | null;
}

/** How the long and short calls did; 'none' calls are stored but not scored. */
export function trackRecordOf(calls: readonly RecordedCall[]): TrackRecord {
  let n = 0;
  let hits = 0;
  let sum = 0;
  for (const c of calls) {
    const move = nextDayMove(c);
    if (c.call === 'none' || move === null) continue;
    const followed = c.call === 'long' ? move : -move;
    n++;
    if (followed > 0) hits++;
    sum += followed;
  }
  return {
    calls: n,
    hits,
    hit_rate: n === 0 ? null : round((hits / n) * 100, 2),
    average_move_percent: n === 0 ? null : round(sum / n, 4),
  };
}
