// The writes a finished bet makes beside its record entry: its place in its
// owner's history, the leaderboards, the day statistics and the league
// tallies. None reads what another writes, and every row they write is the
// owner's, whose row lock the record handler holds by now: they go to the
// database as one statement on PostgreSQL (src/db/together.ts), one round
// trip instead of five.
import type { Db } from '../db/database.js';
import { runTogether } from '../db/together.js';
import { placeBelowLaterExits } from '../repositories/bets.js';
import type { BetEvent } from './events.js';
import { historyPlaceStatement } from './history.js';
import { talliesStatement } from './league-tallies.js';
import { aggregateStatements } from './rankings.js';

/** The betChanged handler for a finished bet's history place and aggregates. */
export function betAggregatesHandler() {
  return async (trx: Db, e: BetEvent): Promise<void> => {
    const place = historyPlaceStatement(trx, e);
    const tallies = talliesStatement(trx, e);
    const rest = [...aggregateStatements(trx, e), ...(tallies ? [tallies] : [])];
    if (!place) {
      const [first, ...others] = rest;
      if (first) await runTogether(trx, first, others);
      return;
    }
    const [top] = await runTogether(trx, place, rest);
    if (!top) await placeBelowLaterExits(trx, e.bet);
  };
}
