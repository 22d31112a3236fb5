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
const SESSION_MS = (CLOSE_MINUTE - OPEN_MINUTE) * 60_000;
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

const HOUR_MS = 3_600_000;
const nyOffsets = new Map<number, number>();

/**
 * New York's offset from UTC at t, in ms. New York's clocks change on a UTC
 * hour (2:00 local), so the offset is looked up once per UTC hour and kept:
 * charts ask for hundreds of instants, and a time-zone lookup costs far more
 * than the arithmetic around it.
 */
function nyOffsetMs(t: number): number {
  const hour = Math.floor(t / HOUR_MS);
  let offset = nyOffsets.get(hour);
  if (offset === undefined) {
    if (nyOffsets.size >= 100_000) nyOffsets.clear();
    offset = DateTime.fromMillis(hour * HOUR_MS, { zone: NYSE_ZONE }).offset * 60_000;
    nyOffsets.set(hour, offset);
  }
  return offset;
}

/** The New York calendar day of t (days since 1970-01-01), its date, and the ms since local midnight. */
function nyWallClock(t: number): { day: number; date: string; sinceMidnight: number } {
  const local = t + nyOffsetMs(t);
  const day = Math.floor(local / DAY_MS);
  return { day, date: new Date(day * DAY_MS).toISOString().slice(0, 10), sinceMidnight: local - day * DAY_MS };
}

/** Days since 1970-01-01 of a 'YYYY-MM-DD' date. */
function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/** Monday to Friday: a day number whose weekday (0 = Monday; 1970-01-01 was a Thursday) is below 5. */
function isWeekday(day: number): boolean {
  return ((day % 7) + 10) % 7 < 5;
}

/** Monday to Friday among the days [0, day) since 1970-01-01 (a Thursday); negative before it. */
function weekdaysBefore(day: number): number {
  const weeks = Math.floor(day / 7);
  // The first n days of a week that starts on a Thursday: Thu, Fri, Sat, Sun, Mon, Tue.
  return weeks * 5 + [0, 1, 2, 2, 2, 3, 4][day - weeks * 7];
}

function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

/** The rules that depend on the holiday table. */
export class MarketCalendar {
  private readonly holidays: ReadonlySet<string>;
  /** The holidays that fall on weekdays, sorted: each one removes a session. */
  private readonly weekdayHolidays: readonly string[];
  /** The last date the holiday table covers; later dates are treated as ordinary weekdays. */
  readonly holidaysThrough: string;

  constructor(table: HolidayTable) {
    this.holidays = new Set(table.holidays.map((h) => h.date));
    this.weekdayHolidays = [...this.holidays].filter((d) => isWeekday(dayNumber(d))).sort();
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
    const ny = nyWallClock(t);
    const minute = Math.floor(ny.sinceMidnight / 60_000);
    return isWeekday(ny.day) && !this.holidays.has(ny.date) && minute >= OPEN_MINUTE && minute < CLOSE_MINUTE;
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
   * A clock that runs only during NYSE regular sessions: milliseconds of
   * session (9:30 to 16:00 New York on trading days) from 1970-01-01 to t,
   * negative before. It stands still outside sessions, so it is equal at t and
   * at marketTime(t). Constant time: weekdays are counted in closed form and
   * holidays by binary search.
   */
  sessionTime(t: number): number {
    const { day, date, sinceMidnight } = nyWallClock(t);
    let ms = (weekdaysBefore(day) - this.weekdayHolidaysBefore(date)) * SESSION_MS;
    if (isWeekday(day) && !this.holidays.has(date)) {
      // Wall-clock time since 9:30 is real time since the open: clocks change at 2:00, never in or after a session.
      ms += Math.min(Math.max(sinceMidnight - OPEN_MINUTE * 60_000, 0), SESSION_MS);
    }
    return ms;
  }

  /** Weekday holidays from 1970-01-01 to a date (negative: those from the date to 1970). */
  private weekdayHolidaysBefore(date: string): number {
    const below = (d: string) => {
      let lo = 0;
      let hi = this.weekdayHolidays.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.weekdayHolidays[mid] < d) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return below(date) - below('1970-01-01');
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
