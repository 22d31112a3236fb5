// When a bet with a target date settles, as the bet form states it, in the
// user's own time zone. The rule is the service's (DESIGN;
// MarketCalendar.settlementTime in src/domain/market-calendar.ts): crypto at
// 00:00 UTC after the target date, stocks and ETFs at the first NYSE close
// (16:00 New York) on or after it. The browser has no holiday table (it is the
// server's data), so a weekend date rolls on to Monday here and the form says
// that a market holiday rolls it on too.

import { formatInstant } from './format.js';

const DAY_MS = 86_400_000;
const NY_HOUR = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' });

export type InstrumentKind = 'stock' | 'etf' | 'crypto';

/** 16:00 in New York on a 'YYYY-MM-DD' date, epoch ms: 21:00 UTC in winter (EST), 20:00 UTC in summer (EDT). */
export function nyCloseOf(date: string): number {
  const winter = Date.parse(`${date}T21:00:00Z`);
  return Number(NY_HOUR.format(winter)) === 16 ? winter : winter - 3_600_000;
}

/** The date itself, or the Monday after when it falls on a weekend. */
export function weekdayOnOrAfter(date: string): string {
  const t = Date.parse(`${date}T00:00:00Z`);
  const day = new Date(t).getUTCDay();
  const skip = day === 6 ? 2 : day === 0 ? 1 : 0;
  return new Date(t + skip * DAY_MS).toISOString().slice(0, 10);
}

/** When a bet on this kind of instrument with this target date settles (a holiday aside, for stocks), epoch ms. */
export function settlementInstant(kind: InstrumentKind, targetDate: string): number {
  if (kind === 'crypto') return Date.parse(`${targetDate}T00:00:00Z`) + DAY_MS;
  return nyCloseOf(weekdayOnOrAfter(targetDate));
}

/** A crypto pair ("BTC-USD", "ETH-USDT"), as the service tells one (isCryptoTicker in src/domain/market-calendar.ts). */
export function isCryptoTicker(ticker: string): boolean {
  return /^[A-Z0-9]+-USDT?$/.test(ticker);
}

/** When an open bet on `ticker` with this target date settles, in the user's zone: "Mon 30 Nov, 4:00 PM EST". */
export function settlementOf(ticker: string, targetDate: string, timeZone?: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(targetDate) || Number.isNaN(Date.parse(targetDate))) return targetDate;
  return formatInstant(settlementInstant(isCryptoTicker(ticker) ? 'crypto' : 'stock', targetDate), timeZone);
}

/**
 * The form's sentence on settlement: with a date, the instant in the user's
 * zone (`timeZone` for tests; the browser's own otherwise); without one, the rule.
 */
export function settlementHint(kind: InstrumentKind, targetDate: string, timeZone?: string): string {
  if (targetDate === '' || !/^\d{4}-\d{2}-\d{2}$/.test(targetDate) || Number.isNaN(Date.parse(targetDate)))
    return kind === 'crypto'
      ? 'Crypto trades around the clock: the bet settles at 00:00 UTC after its target date. Past dates are not allowed.'
      : "The bet settles at the target day's NYSE close (4:00 PM New York time), or the next trading day's when the market is shut. Past dates are not allowed.";
  const at = formatInstant(settlementInstant(kind, targetDate), timeZone);
  if (kind === 'crypto') return `Settles at ${at} (00:00 UTC after ${targetDate}).`;
  const rolled = weekdayOnOrAfter(targetDate) !== targetDate;
  return `Settles at ${at}, the NYSE close${rolled ? ' of the next trading day' : ''}; a market holiday moves it to the next trading day's close.`;
}
