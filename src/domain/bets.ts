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

/**
 * A bet's committed instant (docs/rankings.md): the end of its cancel window.
 * Its committed price is the first quote published at or after it; a bet that
 * finishes before it is never ranked.
 */
export function committedInstant(openedAt: number): number {
  return cancelableUntil(openedAt);
}

/** What a bet needs for its ranking: its commit state, the rest of the row aside. */
export interface Commitment {
  direction: Direction;
  opened_at: number;
  settle_at: number | null;
  committed_price: number | null;
  unranked_reason: string | null;
}

/**
 * True when an OPEN bet must be committed before anything else happens to it
 * at `now`: its committed instant has come, it is not committed yet, it can be
 * ranked, and it is not due to settle before that instant (such a bet ends
 * inside its window and is never ranked).
 */
export function commitDue(bet: Commitment, now: number): boolean {
  const at = committedInstant(bet.opened_at);
  return bet.committed_price === null && bet.unranked_reason === null && at <= now && (bet.settle_at === null || bet.settle_at >= at);
}

/** True when an OPEN bet's settlement instant has come: it settles at that instant's quote before anything else. */
export function settlementDue(bet: Pick<Commitment, 'settle_at'>, now: number): boolean {
  return bet.settle_at !== null && bet.settle_at <= now;
}

/** The ranked gain of a bet ending at `exit`: from its committed price, or null when it has none (finished before it, or unranked). */
export function rankedGain(bet: Pick<Commitment, 'direction' | 'committed_price' | 'unranked_reason'>, exit: number): number | null {
  if (bet.committed_price === null || bet.unranked_reason !== null) return null;
  return percentageGain(bet.direction, bet.committed_price, exit);
}

/** True when a bet ended (closed by hand, settled or cancelled) before its committed instant: such a bet is never ranked. */
export function endedEarly(openedAt: number, closedAt: number): boolean {
  return closedAt < committedInstant(openedAt);
}

/** Where a bet stands for the boards (GET /bet/{bet_id}'s `ranked`). */
export type RankState = 'pending' | 'ranked' | 'early' | 'cancelled' | 'unranked';

export interface RankFacts {
  status: BetStatus;
  opened_at: number;
  closed_at: number | null;
  ranked_gain: number | null;
  unranked_reason: string | null;
}

/**
 * A bet's place in the ranked scores, in this order: a cancelled bet is
 * 'cancelled' (whatever else is true of it); one that can never be ranked is
 * 'unranked' (its reason says why); an OPEN one is 'pending' (its window not
 * over, not yet committed, or committed and awaiting its exit); a finished one
 * with a ranked gain is 'ranked'; one that finished before its committed
 * instant is 'early'. What is left, a close after its instant without a
 * committed price (bets closed before committed prices were recorded), can
 * never gain one: 'unranked', with no reason recorded.
 */
export function rankState(bet: RankFacts): RankState {
  if (bet.status === 'CANCELLED') return 'cancelled';
  if (bet.unranked_reason !== null) return 'unranked';
  if (bet.status === 'OPEN') return 'pending';
  if (bet.ranked_gain !== null) return 'ranked';
  if (bet.closed_at !== null && endedEarly(bet.opened_at, bet.closed_at)) return 'early';
  return 'unranked';
}

/** Why a target date is refused (SPEC: not in the past, UTC; today allowed), or null. */
export function targetDateProblem(targetDate: string, now: number): string | null {
  if (targetDate < utcDate(now)) return 'target_date must not be in the past (UTC)';
  return null;
}
