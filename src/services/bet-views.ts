// Bet rows as the API shows them. Shared by trading (portfolio, history), the
// social part (feed, public profiles) and the single-bet page.
import type { BetViewRow } from '../db/bet-columns.js';
import type { OpenBetView } from '../repositories/bets.js';
import { cancelableUntil, isCancelable, percentageGain } from '../domain/bets.js';
import { isoTime } from '../lib/iso-time.js';
import type { PortfolioBet } from '../schemas/bets.js';
import { finishedView, type StatusBet, statusBetJson, toClosedBet } from '../schemas/finished-bet-view.js';

export { finishedView, type StatusBet, statusBetJson, toClosedBet };

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

/** Any bet in ClosedBet shape: finished ones as they ended, OPEN ones marked to market at `now`. */
export function toBetView(row: BetViewRow, mark: number | undefined, now: number): StatusBet {
  return row.status === 'OPEN' ? markedOpenBet(row, mark, now) : toClosedBet(row);
}

/** An OPEN bet in ClosedBet shape: exit is the mark (the entry without one), at `now`. */
export function markedOpenBet(
  row: Pick<BetViewRow, 'id' | 'ticker' | 'direction' | 'entry_price' | 'opened_at'>,
  mark: number | undefined,
  now: number,
): StatusBet {
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
