// Bets this process opened and has not yet seen end. A close reads its bet
// before the transaction (the ticker decides the price to fetch); for a bet
// opened here the row comes from memory instead of a query outside any
// transaction, which on SQLite costs more than the close's own update.
// Only fields that never change are taken from here (owner, ticker,
// direction, entry price): whether the bet is still OPEN is decided by the
// close's update inside its transaction, so a bet another instance (or the
// settlement worker) ended meanwhile still answers "Bet is not open".
import type { BetRow } from '../db/tables.js';
import { BoundedMap } from '../lib/bounded-map.js';
import type { BetEvents } from './bet-events.js';

export const OPEN_BETS_REMEMBERED = 10_000;

/** Open bets by id; the oldest remembered is dropped past the bound. */
export class RecentOpenBets extends BoundedMap<number, BetRow> {
  constructor(max = OPEN_BETS_REMEMBERED) {
    super(max);
  }

  add(bet: BetRow): void {
    this.set(bet.id, bet);
  }

  forget(id: number): void {
    this.delete(id);
  }

  /** Remembers each opening once it is committed, forgets the bet once its end is. */
  follow(events: BetEvents): void {
    events.onCommitted((e) => (e.kind === 'opened' ? this.add(e.bet) : this.forget(e.bet.id)));
  }
}
