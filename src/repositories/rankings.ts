// Per-user per-day aggregates of closed bets and the window reads over them
// (user_day_stats_day_idx); never a scan of bets.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';

export interface DayStatsDelta {
  userId: number;
  day: string;
  gain: number;
  alpha: number | null;
}

const addToDayStatsQuery = prepared(
  (db, r: { user_id: number; day: string; score_sum: number; wins: number; alpha_count: number; alpha_sum: number; alpha_sq_sum: number }) =>
    db
      .insertInto('user_day_stats')
      .values({
        user_id: r.user_id,
        day: r.day,
        trades: 1,
        score_sum: r.score_sum,
        wins: r.wins,
        alpha_count: r.alpha_count,
        alpha_sum: r.alpha_sum,
        alpha_sq_sum: r.alpha_sq_sum,
      })
      .onConflict((oc) =>
        oc.columns(['user_id', 'day']).doUpdateSet((eb) => ({
          trades: eb('user_day_stats.trades', '+', eb.ref('excluded.trades')),
          score_sum: eb('user_day_stats.score_sum', '+', eb.ref('excluded.score_sum')),
          wins: eb('user_day_stats.wins', '+', eb.ref('excluded.wins')),
          alpha_count: eb('user_day_stats.alpha_count', '+', eb.ref('excluded.alpha_count')),
          alpha_sum: eb('user_day_stats.alpha_sum', '+', eb.ref('excluded.alpha_sum')),
          alpha_sq_sum: eb('user_day_stats.alpha_sq_sum', '+', eb.ref('excluded.alpha_sq_sum')),
        })),
      ),
);

/** Adds one CLOSED bet to its owner's row for its exit day (prepared: every close runs it). */
export async function addToDayStats(db: Db, d: DayStatsDelta): Promise<void> {
  const alpha = d.alpha ?? 0;
  await addToDayStatsQuery(db, {
    user_id: d.userId,
    day: d.day,
    score_sum: d.gain,
    wins: d.gain > 0 ? 1 : 0,
    alpha_count: d.alpha !== null ? 1 : 0,
    alpha_sum: alpha,
    alpha_sq_sum: alpha * alpha,
  });
}

/**
 * Each live user's sums over the days from fromDay (null: every day): the
 * window's day rows are summed first (a range of user_day_stats_day_idx),
 * then joined to users, so no user outside the window is read.
 */
export function windowTotalsQuery(db: Db, fromDay: string | null) {
  let sums = db
    .selectFrom('user_day_stats')
    .select('user_id')
    .select((eb) => [
      eb.fn.sum<number>('trades').as('trades'),
      eb.fn.sum<number>('score_sum').as('score'),
      eb.fn.sum<number>('alpha_count').as('alpha_n'),
      eb.fn.sum<number>('alpha_sum').as('alpha_sum'),
      eb.fn.sum<number>('alpha_sq_sum').as('alpha_sq_sum'),
    ])
    .groupBy('user_id');
  if (fromDay !== null) sums = sums.where('day', '>=', fromDay);
  return db
    .selectFrom(sums.as('w'))
    .innerJoin('users', 'users.id', 'w.user_id')
    .select(['users.id as id', 'users.username as username', 'w.trades', 'w.score', 'w.alpha_n', 'w.alpha_sum', 'w.alpha_sq_sum'])
    .where('users.deleted_at', 'is', null);
}

export interface WindowTotals {
  id: number;
  username: string;
  trades: number;
  score: number;
  alpha_n: number;
  alpha_sum: number;
  alpha_sq_sum: number;
}

// PostgreSQL sums integers as bigint (text through pg) and may answer numeric: numbers here, once.
const toTotals = (r: Record<keyof WindowTotals, unknown>): WindowTotals => ({
  id: Number(r.id),
  username: String(r.username),
  trades: Number(r.trades),
  score: Number(r.score),
  alpha_n: Number(r.alpha_n),
  alpha_sum: Number(r.alpha_sum),
  alpha_sq_sum: Number(r.alpha_sq_sum),
});

/** The leaderboard over a window: `limit` rows from `offset` by score, then trades, then id, with at least minTrades closed bets. */
export async function windowLeaderboard(db: Db, fromDay: string | null, minTrades: number, limit: number, offset = 0): Promise<WindowTotals[]> {
  const rows = await windowTotalsQuery(db, fromDay)
    .where('w.trades', '>=', minTrades)
    .orderBy('w.score', 'desc')
    .orderBy('w.trades', 'desc')
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(toTotals);
}

/** One user's place on a board: their score and closed trades there. */
export interface Placed {
  userId: number;
  score: number;
  trades: number;
}

/** One user's closed trades and score summed over the window's days (a range of user_day_stats_day_idx); zeros without any. */
export async function userWindowTotals(db: Db, userId: number, fromDay: string): Promise<Placed> {
  const row = await db
    .selectFrom('user_day_stats')
    .select((eb) => [eb.fn.sum<number>('trades').as('trades'), eb.fn.sum<number>('score_sum').as('score')])
    .where('user_id', '=', userId)
    .where('day', '>=', fromDay)
    .executeTakeFirst();
  return { userId, trades: Number(row?.trades ?? 0), score: Number(row?.score ?? 0) };
}

/**
 * How many live users with at least minTrades closed bets in the window rank
 * ahead of `me` (by score, then trades, then id): the window's day rows summed
 * per user, as the windowed leaderboard reads them, and counted.
 */
export async function windowUsersAhead(db: Db, fromDay: string, minTrades: number, me: Placed): Promise<number> {
  const ahead = db
    .selectFrom('user_day_stats')
    .select('user_id')
    .where('day', '>=', fromDay)
    .where('user_id', '<>', me.userId)
    .groupBy('user_id')
    .having((eb) => {
      const trades = eb.fn.sum<number>('trades');
      const score = eb.fn.sum<number>('score_sum');
      return eb.and([
        eb(trades, '>=', minTrades),
        eb.or([
          eb(score, '>', me.score),
          eb.and([
            eb(score, '=', me.score),
            eb.or([eb(trades, '>', me.trades), eb.and([eb(trades, '=', me.trades), eb('user_id', '<', me.userId)])]),
          ]),
        ]),
      ]);
    });
  const row = await db
    .selectFrom(ahead.as('a'))
    .innerJoin('users', 'users.id', 'a.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One user's row of the all-time aggregate (SPEC's leaderboard); zeros without one. */
export async function userAllTimeTotals(db: Db, userId: number): Promise<Placed> {
  const row = await db.selectFrom('leaderboard').select(['total_score', 'total_trades']).where('user_id', '=', userId).executeTakeFirst();
  return { userId, trades: Number(row?.total_trades ?? 0), score: Number(row?.total_score ?? 0) };
}

/** How many live users rank ahead of `me` on the all-time aggregate: a range of leaderboard_rank_idx, counted. */
export async function allTimeUsersAhead(db: Db, minTrades: number, me: Placed): Promise<number> {
  const row = await db
    .selectFrom('leaderboard')
    .innerJoin('users', 'users.id', 'leaderboard.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.deleted_at', 'is', null)
    .where('leaderboard.user_id', '<>', me.userId)
    .where('leaderboard.total_trades', '>=', minTrades)
    .where((eb) =>
      eb.or([
        eb('leaderboard.total_score', '>', me.score),
        eb.and([
          eb('leaderboard.total_score', '=', me.score),
          eb.or([
            eb('leaderboard.total_trades', '>', me.trades),
            eb.and([eb('leaderboard.total_trades', '=', me.trades), eb('leaderboard.user_id', '<', me.userId)]),
          ]),
        ]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every live user with at least minAlphaTrades bets carrying alpha in the window: the rankings are computed from these. */
export async function windowAlphaTotals(db: Db, fromDay: string | null, minAlphaTrades: number): Promise<WindowTotals[]> {
  const rows = await windowTotalsQuery(db, fromDay).where('w.alpha_n', '>=', minAlphaTrades).execute();
  return rows.map(toTotals);
}
