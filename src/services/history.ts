// A finished bet's place in its owner's history (migration 0033), given in the
// transaction that finished it, so a page of the history at any offset is one
// seek (src/repositories/bets.ts listFinishedBets).
import type { Db } from '../db/database.js';
import { placeOnTopStatement } from '../repositories/bets.js';
import type { BetEvent } from './events.js';

/**
 * The statement placing a bet that has just finished on top of its owner's
 * history, sent with its other writes (src/services/bet-aggregates.ts); null
 * when there is nothing to place. When it places nothing (a later exit is
 * recorded), placeBelowLaterExits gives the place.
 */
export function historyPlaceStatement(trx: Db, { kind, bet }: BetEvent) {
  if (kind === 'opened' || bet.closed_at === null || bet.history_pos !== null) return null;
  return placeOnTopStatement(trx, bet);
}
