// Where each rolling window begins, and moving that start (migration 0035):
// a window's user_window_stats rows are its users' day rows summed from its
// start_day on. Moving the start recounts, from their day rows, only the users
// with a day row between the old start and the new one (about a day's closers),
// so each window row stays an exact sum of day rows rather than a running
// total that subtractions would wear.
import { type SelectQueryBuilder, sql } from 'kysely';
import { type Db, dialectOf } from '../db/database.js';
import type { Database } from '../db/tables.js';
import type { Period } from '../domain/rankings.js';

/** The sums a window row keeps (user_day_stats's, without the wins). */
export const WINDOW_SUMS = [
  'trades',
  'score_sum',
  'alpha_count',
  'alpha_sum',
  'alpha_sq_sum',
  'ranked_trades',
  'ranked_score_sum',
  'ranked_alpha_count',
  'ranked_alpha_sum',
  'ranked_alpha_sq_sum',
] as const;

/** Every window's first counted day ('' for `all`). */
export async function windowStarts(db: Db): Promise<Map<Period, string>> {
  const rows = await db.selectFrom('window_starts').select(['period', 'start_day']).execute();
  return new Map(rows.map((r) => [r.period as Period, r.start_day]));
}

/**
 * Inside the caller's transaction, before windowStarts is read again: on
 * PostgreSQL, waits for the writes that already added to the window rows and
 * holds back new ones (their triggers read window_starts) until the moves commit.
 */
export async function lockWindowTotals(trx: Db): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`lock table user_window_stats in share row exclusive mode`.execute(trx);
}

/** Inserts a window's rows made from the day rows from `start` on: every user's, or only the users `only` selects. */
async function insertWindowRows(trx: Db, period: Period, start: string, only?: SelectQueryBuilder<Database, 'user_day_stats', { user_id: number }>) {
  let sums = trx
    .selectFrom('user_day_stats')
    .select((eb) => [sql<string>`cast(${period} as varchar(8))`.as('period'), 'user_id', ...WINDOW_SUMS.map((c) => eb.fn.sum<number>(c).as(c))])
    .where('day', '>=', start)
    .groupBy('user_id');
  if (only) sums = sums.where('user_id', 'in', only);
  await trx
    .insertInto('user_window_stats')
    .columns(['period', 'user_id', ...WINDOW_SUMS])
    .expression(sums)
    .execute();
}

/** Moves a window's start from `from` to `to` (either way), recounting the users whose day rows lie between; in the caller's transaction. */
export async function moveWindowStart(trx: Db, period: Period, from: string, to: string): Promise<void> {
  const [low, high] = from < to ? [from, to] : [to, from];
  const crossed = trx.selectFrom('user_day_stats').select('user_id').where('day', '>=', low).where('day', '<', high);
  await trx.deleteFrom('user_window_stats').where('period', '=', period).where('user_id', 'in', crossed).execute();
  await insertWindowRows(trx, period, to, crossed);
  await trx.updateTable('window_starts').set({ start_day: to }).where('period', '=', period).execute();
}

/** Every window's rows made again from the day rows at its current start (the recount of every aggregate, src/services/recompute-aggregates.ts). */
export async function rebuildWindowTotals(trx: Db): Promise<void> {
  await trx.deleteFrom('user_window_stats').execute();
  for (const [period, start] of await windowStarts(trx)) await insertWindowRows(trx, period, start);
}
