// Bet rows as the API shows them. Shared by trading (portfolio, history), the
// social part (feed, public profiles) and the single-bet page.
import type { BetRow } from '../db/tables.js';
import type { BetViewRow } from '../db/bet-columns.js';
import type { OpenBetView } from '../repositories/bets.js';
import { cancelableUntil, isCancelable, percentageGain } from '../domain/bets.js';
import { recordCloseReason } from '../domain/record.js';
import { isoTime } from '../lib/iso-time.js';
import type { ClosedBet, PortfolioBet } from '../schemas/bets.js';

export const iso = isoTime;

/**
 * An OPEN bet marked to market. `mark` is the current (or last known) price;
 * without one the entry price stands, so the gain shows 0 rather than nothing.
 */
export function toPortfolioBet(row: OpenBetView, mark: number | undefined, now: number): PortfolioBet {
  const current = mark ?? row.entry_price;
  return {
    id: row.id,
    ticker: row.ticker,
    direction: row.direction,
    entry: row.entry_price,
    current,
    unrealized_gain: percentageGain(row.direction, row.entry_price, current),
    target_date: row.target_date,
    entry_date: iso(row.opened_at),
    cancelable_until: isCancelable(row.opened_at, now) ? iso(cancelableUntil(row.opened_at)) : null,
  };
}

export type StatusBet = ClosedBet & { status: BetRow['status'] };

/**
 * A CLOSED or CANCELLED bet (a cancelled one shows exit = entry, 0 %, at the
 * cancel time), with why it ended as the record names it. Built as one
 * literal, the reason set after it: a spread of a conditional part makes an
 * object whose every later copy is slow, and pages copy 100 of them.
 */
export function toClosedBet(row: BetViewRow): StatusBet {
  if (row.closed_at === null || row.exit_price === null || row.percentage_gain === null) {
    throw new Error(`toClosedBet: bet ${row.id} is ${row.status}, not finished`);
  }
  const view: StatusBet = {
    id: row.id,
    ticker: row.ticker,
    direction: row.direction,
    entry_price: row.entry_price,
    exit_price: row.exit_price,
    percentage_gain: row.percentage_gain,
    exit_date: iso(row.closed_at),
    entry_date: iso(row.opened_at),
    status: row.status,
  };
  if (row.close_reason !== null) view.close_reason = recordCloseReason(row.close_reason)!;
  return view;
}

/** Any bet in ClosedBet shape: finished ones as they ended, OPEN ones marked to market at `now`. */
export function toBetView(row: BetViewRow, mark: number | undefined, now: number): StatusBet {
  if (row.status !== 'OPEN') return toClosedBet(row);
  const current = mark ?? row.entry_price;
  return {
    id: row.id,
    ticker: row.ticker,
    direction: row.direction,
    entry_price: row.entry_price,
    exit_price: current,
    percentage_gain: percentageGain(row.direction, row.entry_price, current),
    exit_date: iso(now),
    entry_date: iso(row.opened_at),
    status: 'OPEN',
  };
}
