// Keeps each membership's tally (docs/leagues.md): a bet that finishes is
// added, in its own transaction, to its owner's tally in every league it
// counts in, so a board reads sums and the few bets still open, never every
// bet in the window. Each league adds the delta of its scoring version (raw
// gain, or ranked gain) in the same statement.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import { tallyDelta } from '../domain/leagues.js';
import { isCryptoTicker } from '../domain/market-calendar.js';
import { addToTalliesStatement } from '../repositories/leagues.js';
import type { BetEvent } from './events.js';

/** What a finished bet adds to its owner's tallies, as a statement sent with its other writes (src/services/bet-aggregates.ts); null for an opening. */
export function talliesStatement(trx: Db, { kind, bet, at }: BetEvent): CompiledQuery | null {
  if (kind === 'opened') return null;
  const finished = { user_id: bet.user_id, opened_at: bet.opened_at, closed_at: bet.closed_at ?? at, crypto: isCryptoTicker(bet.ticker) };
  const ended = { ...bet, closed_at: finished.closed_at };
  return addToTalliesStatement(trx, finished, tallyDelta(ended, 1), tallyDelta(ended, 2));
}
