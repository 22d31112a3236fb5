const priceFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const smallPriceFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 6 });

export function formatPrice(n: number): string {
  return Math.abs(n) < 1 && n !== 0 ? smallPriceFormat.format(n) : priceFormat.format(n);
}

/**
 * A price with its currency. Every instrument the service quotes is priced in
 * US dollars: US-listed stocks and ETFs, and crypto as its -USD pair
 * (DESIGN; docs/market.md), so the directory carries no currency of its own.
 */
export function formatQuote(n: number): string {
  return `${formatPrice(n)} USD`;
}

export function formatGain(n: number): string {
  const sign = n > 0 ? '+' : n < 0 ? '−' : '';
  return `${sign}${priceFormat.format(Math.abs(n))}%`;
}

export function gainClass(n: number): string {
  return n > 0 ? 'gain-up' : n < 0 ? 'gain-down' : 'gain-flat';
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();
function instantFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let fmt = instantFormats.get(key);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone,
    });
    instantFormats.set(key, fmt);
  }
  return fmt;
}

/**
 * The app's one way of writing an instant: "Mon 30 Nov, 4:00 PM EST", in the
 * user's zone (`timeZone` for tests; the browser's own otherwise), with the
 * year only when it is not this year's.
 */
export function formatInstant(t: number | Date, timeZone?: string, now: number = Date.now()): string {
  const fmt = instantFormat(timeZone);
  const part = (parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const parts = fmt.formatToParts(t);
  const year = part(parts, 'year');
  const shownYear = year === part(fmt.formatToParts(now), 'year') ? '' : ` ${year}`;
  return `${part(parts, 'weekday')} ${part(parts, 'day')} ${part(parts, 'month')}${shownYear}, ${part(parts, 'hour')}:${part(parts, 'minute')} ${part(parts, 'dayPeriod')} ${part(parts, 'timeZoneName')}`;
}

export function formatDateTime(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : formatInstant(t, timeZone);
}

/** A calendar date ('YYYY-MM-DD', no zone: a target date) in the same words: "Mon 30 Nov 2026". */
export function formatDay(date: string): string {
  const t = Date.parse(`${date}T12:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(t)) return date;
  const parts = new Intl.DateTimeFormat('en-US', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatToParts(t);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

/** Amount in the currency's smallest unit (SPEC), shown in that currency. */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  try {
    const fmt = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
    const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
    return fmt.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${code}`;
  }
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function formatCountdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A fraction (0.25) as a percentage ("25.0%"); "—" when there is none. */
export function formatRate(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A duration in seconds, in its two largest units: "45 s", "12 min", "3 h 05 min", "2 d 4 h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** Percentage points (alpha, skill, drawdown), signed like gains but with "pt". */
export function formatPoints(n: number): string {
  return formatGain(n).replace('%', ' pt');
}

/** A count with its noun in the right number: "1 bet", "2 bets", "0 trades". `plural` for nouns not made with -s. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${integerFormat.format(n)} ${n === 1 ? noun : plural}`;
}
