// Bets written straight into the database, in any state and at any time, for
// tests of what reads them (feed, profiles, query plans).
import type { AppContext } from '../../src/context.js';
import type { BetRow, NewBet } from '../../src/db/tables.js';
import { renumberHistory } from '../../src/repositories/bets.js';
import { fillFinishedViews } from '../../src/db/migrations/0040_finished_bet_views.js';
import { fillTimelines } from '../../src/repositories/timeline.js';

export interface TestBet {
  userId: number;
  ticker?: string;
  direction?: 'LONG' | 'SHORT';
  entry?: number;
  openedAt: number;
  /** Omitted: the bet is OPEN. */
  end?: { status: 'CLOSED' | 'CANCELLED'; at: number; exit?: number; gain?: number };
}

export function betRow(b: TestBet): NewBet {
  const entry = b.entry ?? 100;
  const end = b.end;
  return {
    user_id: b.userId,
    ticker: b.ticker ?? 'AAPL',
    direction: b.direction ?? 'LONG',
    status: end?.status ?? 'OPEN',
    entry_price: entry,
    exit_price: end ? (end.status === 'CANCELLED' ? entry : (end.exit ?? entry)) : null,
    percentage_gain: end ? (end.status === 'CANCELLED' ? 0 : (end.gain ?? 0)) : null,
    opened_at: b.openedAt,
    closed_at: end?.at ?? null,
    last_event_at: end?.at ?? b.openedAt,
    close_reason: end ? (end.status === 'CANCELLED' ? 'cancel' : 'user') : null,
  };
}

/**
 * Inserts the bets, then gives the finished ones their places in their
 * owners' histories and their stored views, and puts them in their owners'
 * followers' timelines, as their events would.
 */
export async function insertTestBets(ctx: AppContext, bets: TestBet[]): Promise<BetRow[]> {
  if (bets.length === 0) return [];
  const rows = await ctx.db.insertInto('bets').values(bets.map(betRow)).returningAll().execute();
  await fillTimelines(ctx.db, [...new Set(rows.map((r) => r.user_id))]);
  const finished = rows.filter((r) => r.closed_at !== null);
  if (finished.length === 0) return rows;
  const owners = [...new Set(finished.map((r) => r.user_id))];
  await renumberHistory(ctx.db, owners);
  await fillFinishedViews(ctx.db, owners);
  return ctx.db
    .selectFrom('bets')
    .selectAll()
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('id')
    .execute();
}
