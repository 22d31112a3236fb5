// NYSE trading days and hours, and when a bet with a target_date settles.
// Pure functions over epoch milliseconds; Luxon handles America/New_York's
// daylight-saving changes. The holiday table is data (nyse-holidays.json, with
// its source) and runs through 2030.
import fs from 'node:fs';
import { DateTime } from 'luxon';

interface HolidayTable {
  source: string;
  through: string;
  holidays: Array<{ date: string; name: string }>;
}
const holidayTable = JSON.parse(
  fs.readFileSync(new URL('./nyse-holidays.json', import.meta.url), 'utf8'),
) as HolidayTable;

export const NYSE_ZONE = 'America/New_York';
const OPEN_MINUTE = 9 * 60 + 30;
const CLOSE_MINUTE = 16 * 60;
const DAY_MS = 86_400_000;

const HOLIDAYS: ReadonlySet<string> = new Set(holidayTable.holidays.map((h) => h.date));
/** The last date the holiday table covers; later dates are treated as ordinary weekdays. */
export const HOLIDAYS_THROUGH: string = holidayTable.through;

export function isNyseHoliday(date: string): boolean {
  return HOLIDAYS.has(date);
}

/** A 'YYYY-MM-DD' calendar date is a NYSE trading day: a weekday that is not a holiday. */
export function isTradingDay(date: string): boolean {
  const d = DateTime.fromISO(date, { zone: 'UTC' });
  return d.weekday <= 5 && !HOLIDAYS.has(date);
}

function nyTime(date: string, minuteOfDay: number): number {
  return DateTime.fromISO(date, { zone: NYSE_ZONE })
    .set({ hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60, second: 0, millisecond: 0 })
    .toMillis();
}

/** The 16:00 New York close of a date, as epoch milliseconds. */
export function nyseCloseOf(date: string): number {
  return nyTime(date, CLOSE_MINUTE);
}

function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

/** The first trading day on or after a date. */
export function tradingDayOnOrAfter(date: string): string {
  let d = date;
  while (!isTradingDay(d)) d = addDays(d, 1);
  return d;
}

/** True while the NYSE regular session (9:30 to 16:00 New York) is open at t. */
export function isMarketOpen(t: number): boolean {
  const ny = DateTime.fromMillis(t, { zone: NYSE_ZONE });
  const minute = ny.hour * 60 + ny.minute;
  return isTradingDay(ny.toISODate() as string) && minute >= OPEN_MINUTE && minute < CLOSE_MINUTE;
}

/**
 * The instant whose price stands at t for something that trades only in
 * NYSE hours: t itself while the market is open, else the last close before t.
 */
export function marketTime(t: number): number {
  if (isMarketOpen(t)) return t;
  let date = DateTime.fromMillis(t, { zone: NYSE_ZONE }).toISODate() as string;
  for (;;) {
    if (isTradingDay(date)) {
      const close = nyseCloseOf(date);
      if (close <= t) return close;
    }
    date = addDays(date, -1);
  }
}

/** Crypto pairs (`BTC-USD`) trade around the clock; everything else follows NYSE hours. */
export function isCryptoTicker(ticker: string): boolean {
  return /^[A-Z0-9]+-USDT?$/.test(ticker);
}

/**
 * When a bet with this target date settles (DESIGN): stocks and ETFs at the
 * first NYSE close on or after the date; crypto at 00:00 UTC after it.
 */
export function settlementTime(ticker: string, targetDate: string): number {
  if (isCryptoTicker(ticker)) return Date.parse(`${targetDate}T00:00:00Z`) + DAY_MS;
  return nyseCloseOf(tradingDayOnOrAfter(targetDate));
}

/** Today's date in UTC, 'YYYY-MM-DD'. */
export function utcDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
