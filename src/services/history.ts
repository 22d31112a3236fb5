// A finished bet's place in its owner's history (migration 0033), given in the
// transaction that finished it, so a page of the history at any offset is one
// seek (src/repositories/bets.ts listFinishedBets).
import type { Db } from '../db/database.js';
import { placeInHistory } from '../repositories/bets.js';
import type { BetEvent } from './events.js';

export function historyPlaceHandler() {
  return async (trx: Db, { kind, bet }: BetEvent): Promise<void> => {
    if (kind === 'opened' || bet.closed_at === null || bet.history_pos !== null) return;
    await placeInHistory(trx, bet);
  };
}
