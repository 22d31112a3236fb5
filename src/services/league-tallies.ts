// Keeps each membership's tally (docs/leagues.md): a bet that finishes is
// added, in its own transaction, to its owner's tally in every league it
// counts in, so a board reads sums and the few bets still open, never every
// bet in the window. Each league adds the delta of its scoring version (raw
// gain, or ranked gain) in the same statement.
import type { Db } from '../db/database.js';
import { tallyDelta } from '../domain/leagues.js';
import { isCryptoTicker } from '../domain/market-calendar.js';
import { addToTallies } from '../repositories/leagues.js';
import type { BetEvent } from './events.js';

/** The betChanged handler: a bet that finishes adds to its owner's tallies. */
export function leagueTalliesHandler() {
  return async (trx: Db, { kind, bet, at }: BetEvent): Promise<void> => {
    if (kind === 'opened') return;
    const finished = { user_id: bet.user_id, opened_at: bet.opened_at, closed_at: bet.closed_at ?? at, crypto: isCryptoTicker(bet.ticker) };
    const ended = { ...bet, closed_at: finished.closed_at };
    await addToTallies(trx, finished, tallyDelta(ended, 1), tallyDelta(ended, 2));
  };
}
