// Bet rules with no I/O: tickers, gains, the cancellation window, target dates.
import { utcDate } from './market-calendar.js';

export type Direction = 'LONG' | 'SHORT';
export type BetStatus = 'OPEN' | 'CLOSED' | 'CANCELLED';

/** DESIGN: upper-cased, then this pattern; a badly formed ticker is 400, a well-formed unknown one 404. */
export const TICKER_PATTERN = /^[A-Z0-9][A-Z0-9.-]{0,14}$/;

/** The ticker as we store it, or null when it is badly formed. */
export function normalizeTicker(raw: string): string | null {
  const t = raw.trim().toUpperCase();
  return TICKER_PATTERN.test(t) ? t : null;
}

/** DESIGN: LONG (exit − entry) / entry × 100, SHORT (entry − exit) / entry × 100. */
export function percentageGain(direction: Direction, entry: number, exit: number): number {
  return direction === 'LONG' ? ((exit - entry) / entry) * 100 : ((entry - exit) / entry) * 100;
}

export const CANCEL_WINDOW_MS = 5 * 60 * 1000;

/** The last instant a bet opened at openedAt may be cancelled. */
export function cancelableUntil(openedAt: number): number {
  return openedAt + CANCEL_WINDOW_MS;
}

export function isCancelable(openedAt: number, now: number): boolean {
  return now <= cancelableUntil(openedAt);
}

/** Why a target date is refused (SPEC: not in the past, UTC; today allowed), or null. */
export function targetDateProblem(targetDate: string, now: number): string | null {
  if (targetDate < utcDate(now)) return 'target_date must not be in the past (UTC)';
  return null;
}
