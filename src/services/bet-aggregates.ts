// The writes a bet's event makes beside its record entry: a finished bet's
// place in its owner's history, the leaderboards, the day statistics and the
// league tallies, and every event's copy into the owner's followers'
// timelines (src/services/timeline.ts). None reads what another writes, and
// the owner's row lock is held by the record handler by now: they go to the
// database as one statement on PostgreSQL (src/db/together.ts), one round
// trip instead of six.
import type { Db } from '../db/database.js';
import { runTogether } from '../db/together.js';
import { placeBelowLaterExits } from '../repositories/bets.js';
import { fanOutStatement } from '../repositories/timeline.js';
import type { BetEvent } from './events.js';
import { historyPlaceStatement } from './history.js';
import { talliesStatement } from './league-tallies.js';
import { aggregateStatements } from './rankings.js';

/** The betChanged handler for a bet's timelines and, once finished, its history place and aggregates. */
export function betAggregatesHandler() {
  return async (trx: Db, e: BetEvent): Promise<void> => {
    const place = historyPlaceStatement(trx, e);
    const tallies = talliesStatement(trx, e);
    const rest = [...aggregateStatements(trx, e), ...(tallies ? [tallies] : []), fanOutStatement(trx, e)];
    if (!place) {
      const [first, ...others] = rest;
      if (first) await runTogether(trx, first, others);
      return;
    }
    const [top] = await runTogether(trx, place, rest);
    if (!top) await placeBelowLaterExits(trx, e.bet);
  };
}
