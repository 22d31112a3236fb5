// NYSE trading days and hours, and when a bet with a target_date settles.
// Pure functions over epoch milliseconds; Luxon handles America/New_York's
// daylight-saving changes. The holiday table is data (src/data/nyse-holidays.json,
// with its source, through 2030), read at start outside the domain and handed
// to a MarketCalendar.
import { DateTime } from 'luxon';

/** The holiday table's shape: full-day closures as 'YYYY-MM-DD', and the last date it covers. */
export interface HolidayTable {
  source: string;
  through: string;
  holidays: Array<{ date: string; name: string }>;
}

export const NYSE_ZONE = 'America/New_York';
const OPEN_MINUTE = 9 * 60 + 30;
const CLOSE_MINUTE = 16 * 60;
const DAY_MS = 86_400_000;

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

/** The rules that depend on the holiday table. */
export class MarketCalendar {
  private readonly holidays: ReadonlySet<string>;
  /** The last date the holiday table covers; later dates are treated as ordinary weekdays. */
  readonly holidaysThrough: string;

  constructor(table: HolidayTable) {
    this.holidays = new Set(table.holidays.map((h) => h.date));
    this.holidaysThrough = table.through;
  }

  isNyseHoliday(date: string): boolean {
    return this.holidays.has(date);
  }

  /** A 'YYYY-MM-DD' calendar date is a NYSE trading day: a weekday that is not a holiday. */
  isTradingDay(date: string): boolean {
    const d = DateTime.fromISO(date, { zone: 'UTC' });
    return d.weekday <= 5 && !this.holidays.has(date);
  }

  /** The first trading day on or after a date. */
  tradingDayOnOrAfter(date: string): string {
    let d = date;
    while (!this.isTradingDay(d)) d = addDays(d, 1);
    return d;
  }

  /** True while the NYSE regular session (9:30 to 16:00 New York) is open at t. */
  isMarketOpen(t: number): boolean {
    const ny = DateTime.fromMillis(t, { zone: NYSE_ZONE });
    const minute = ny.hour * 60 + ny.minute;
    return this.isTradingDay(ny.toISODate() as string) && minute >= OPEN_MINUTE && minute < CLOSE_MINUTE;
  }

  /**
   * The instant whose price stands at t for something that trades only in
   * NYSE hours: t itself while the market is open, else the last close before t.
   */
  marketTime(t: number): number {
    if (this.isMarketOpen(t)) return t;
    let date = DateTime.fromMillis(t, { zone: NYSE_ZONE }).toISODate() as string;
    for (;;) {
      if (this.isTradingDay(date)) {
        const close = nyseCloseOf(date);
        if (close <= t) return close;
      }
      date = addDays(date, -1);
    }
  }

  /**
   * When a bet with this target date settles (DESIGN): stocks and ETFs at the
   * first NYSE close on or after the date; crypto at 00:00 UTC after it.
   */
  settlementTime(ticker: string, targetDate: string): number {
    if (isCryptoTicker(ticker)) return Date.parse(`${targetDate}T00:00:00Z`) + DAY_MS;
    return nyseCloseOf(this.tradingDayOnOrAfter(targetDate));
  }
}

/** Crypto pairs (`BTC-USD`) trade around the clock; everything else follows NYSE hours. */
export function isCryptoTicker(ticker: string): boolean {
  return /^[A-Z0-9]+-USDT?$/.test(ticker);
}

/** Today's date in UTC, 'YYYY-MM-DD'. */
export function utcDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
