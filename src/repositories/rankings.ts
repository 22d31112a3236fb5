// Per-user per-day aggregates of closed bets, the window reads over each
// user's window sums (user_window_stats, kept from the day rows: migration
// 0035), and the all-time aggregates of both boards; never a scan of bets.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { Period } from '../domain/rankings.js';

/**
 * Which board a read is of: 'raw' is SPEC's (every CLOSED bet's
 * percentage_gain), 'ranked' sums ranked gains only (docs/rankings.md).
 */
export type Board = 'raw' | 'ranked';

/** Each board's columns on a user_day_stats row. */
const DAY_COLUMNS = {
  raw: { trades: 'trades', score: 'score_sum', alphaN: 'alpha_count', alphaSum: 'alpha_sum', alphaSq: 'alpha_sq_sum' },
  ranked: {
    trades: 'ranked_trades',
    score: 'ranked_score_sum',
    alphaN: 'ranked_alpha_count',
    alphaSum: 'ranked_alpha_sum',
    alphaSq: 'ranked_alpha_sq_sum',
  },
} as const;

/** Each board's all-time aggregate (the two tables have the same columns). */
const ALL_TIME_TABLE = { raw: 'leaderboard', ranked: 'ranked_leaderboard' } as const;

/** One bet's gain and alpha as a board counts them. */
export interface Counted {
  gain: number;
  alpha: number | null;
}

export interface DayStatsDelta extends Counted {
  userId: number;
  day: string;
  /** The same bet on the ranked board; null when it is not ranked. */
  ranked: Counted | null;
}

/** One bet's contribution to a day row: the raw sums, and the ranked sums (zeros for a bet not ranked). */
interface DayRowDelta {
  user_id: number;
  day: string;
  trades: number;
  score_sum: number;
  wins: number;
  alpha_count: number;
  alpha_sum: number;
  alpha_sq_sum: number;
  ranked_trades: number;
  ranked_score_sum: number;
  ranked_wins: number;
  ranked_alpha_count: number;
  ranked_alpha_sum: number;
  ranked_alpha_sq_sum: number;
}

// The placeholders of a prepared query are flat names: each column is bound by its own.
const addToDayStatsQuery = prepared((db, r: DayRowDelta) =>
  db
    .insertInto('user_day_stats')
    .values({
      user_id: r.user_id,
      day: r.day,
      trades: r.trades,
      score_sum: r.score_sum,
      wins: r.wins,
      alpha_count: r.alpha_count,
      alpha_sum: r.alpha_sum,
      alpha_sq_sum: r.alpha_sq_sum,
      ranked_trades: r.ranked_trades,
      ranked_score_sum: r.ranked_score_sum,
      ranked_wins: r.ranked_wins,
      ranked_alpha_count: r.ranked_alpha_count,
      ranked_alpha_sum: r.ranked_alpha_sum,
      ranked_alpha_sq_sum: r.ranked_alpha_sq_sum,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'day']).doUpdateSet((eb) => ({
        trades: eb('user_day_stats.trades', '+', eb.ref('excluded.trades')),
        score_sum: eb('user_day_stats.score_sum', '+', eb.ref('excluded.score_sum')),
        wins: eb('user_day_stats.wins', '+', eb.ref('excluded.wins')),
        alpha_count: eb('user_day_stats.alpha_count', '+', eb.ref('excluded.alpha_count')),
        alpha_sum: eb('user_day_stats.alpha_sum', '+', eb.ref('excluded.alpha_sum')),
        alpha_sq_sum: eb('user_day_stats.alpha_sq_sum', '+', eb.ref('excluded.alpha_sq_sum')),
        ranked_trades: eb('user_day_stats.ranked_trades', '+', eb.ref('excluded.ranked_trades')),
        ranked_score_sum: eb('user_day_stats.ranked_score_sum', '+', eb.ref('excluded.ranked_score_sum')),
        ranked_wins: eb('user_day_stats.ranked_wins', '+', eb.ref('excluded.ranked_wins')),
        ranked_alpha_count: eb('user_day_stats.ranked_alpha_count', '+', eb.ref('excluded.ranked_alpha_count')),
        ranked_alpha_sum: eb('user_day_stats.ranked_alpha_sum', '+', eb.ref('excluded.ranked_alpha_sum')),
        ranked_alpha_sq_sum: eb('user_day_stats.ranked_alpha_sq_sum', '+', eb.ref('excluded.ranked_alpha_sq_sum')),
      })),
    ),
);

/** One bet's sums on one board: one trade, its gain, a win when positive, its alpha when it has one. */
function sumsOf({ gain, alpha }: Counted) {
  const a = alpha ?? 0;
  return { trades: 1, score_sum: gain, wins: gain > 0 ? 1 : 0, alpha_count: alpha !== null ? 1 : 0, alpha_sum: a, alpha_sq_sum: a * a };
}

/**
 * Adds one CLOSED bet to its owner's row for its exit day, on the raw sums
 * and, when it is ranked, the ranked sums: one statement for both (prepared:
 * every close runs it).
 */
export async function addToDayStats(db: Db, d: DayStatsDelta): Promise<void> {
  await db.executeQuery(addToDayStatsStatement(db, d));
}

/** addToDayStats's statement, to send with others. */
export function addToDayStatsStatement(db: Db, d: DayStatsDelta) {
  const raw = sumsOf(d);
  const ranked = d.ranked ? sumsOf(d.ranked) : { trades: 0, score_sum: 0, wins: 0, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 };
  return addToDayStatsQuery.statement(db, {
    user_id: d.userId,
    day: d.day,
    ...raw,
    ranked_trades: ranked.trades,
    ranked_score_sum: ranked.score_sum,
    ranked_wins: ranked.wins,
    ranked_alpha_count: ranked.alpha_count,
    ranked_alpha_sum: ranked.alpha_sum,
    ranked_alpha_sq_sum: ranked.alpha_sq_sum,
  });
}

const addToRankedLeaderboardQuery = prepared((db, p: { userId: number; gain: number }) =>
  db
    .insertInto('ranked_leaderboard')
    .values({ user_id: p.userId, total_score: p.gain, total_trades: 1 })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        total_score: eb('ranked_leaderboard.total_score', '+', eb.ref('excluded.total_score')),
        total_trades: eb('ranked_leaderboard.total_trades', '+', 1),
      })),
    ),
);

/** Adds one ranked bet's ranked gain to its owner's row of the ranked board's all-time aggregate. */
export async function addToRankedLeaderboard(db: Db, userId: number, rankedGain: number): Promise<void> {
  await addToRankedLeaderboardQuery(db, { userId, gain: rankedGain });
}

/** addToRankedLeaderboard's statement, to send with others. */
export function addToRankedLeaderboardStatement(db: Db, userId: number, rankedGain: number) {
  return addToRankedLeaderboardQuery.statement(db, { userId, gain: rankedGain });
}

/** A page of the ranked board's all-time aggregate, in the order of ranked_leaderboard_rank_idx (never a scan of bets). */
export function rankedLeaderboardQuery(db: Db, minTrades: number, limit: number, offset = 0) {
  return db
    .selectFrom('ranked_leaderboard')
    .innerJoin('users', 'users.id', 'ranked_leaderboard.user_id')
    .select(['users.id as id', 'users.username as username', 'ranked_leaderboard.total_score', 'ranked_leaderboard.total_trades'])
    .where('users.deleted_at', 'is', null)
    .where('ranked_leaderboard.total_trades', '>=', minTrades)
    .orderBy('ranked_leaderboard.total_score', 'desc')
    .orderBy('ranked_leaderboard.total_trades', 'desc')
    .orderBy('ranked_leaderboard.user_id')
    .limit(limit)
    .offset(offset);
}

/** Each board's columns on a user_window_stats row. */
const WINDOW_COLUMNS = {
  raw: { trades: 'trades', score: 'score_sum', alphaN: 'alpha_count', alphaSum: 'alpha_sum', alphaSq: 'alpha_sq_sum' },
  ranked: DAY_COLUMNS.ranked,
} as const;

/**
 * Each live user's sums on a board over a window: their user_window_stats
 * row (src/services/window-totals.ts keeps the window's start current), joined
 * to users. The ranked board reads only rows with a ranked bet.
 */
export function windowTotalsQuery(db: Db, period: Period, board: Board = 'raw') {
  const c = WINDOW_COLUMNS[board];
  let q = db
    .selectFrom('user_window_stats as w')
    .innerJoin('users', 'users.id', 'w.user_id')
    .select([
      'users.id as id',
      'users.username as username',
      `w.${c.trades} as trades`,
      `w.${c.score} as score`,
      `w.${c.alphaN} as alpha_n`,
      `w.${c.alphaSum} as alpha_sum`,
      `w.${c.alphaSq} as alpha_sq_sum`,
    ])
    .where('w.period', '=', period)
    .where('users.deleted_at', 'is', null);
  // A literal as the partial index's own condition, so both dialects read user_window_stats_ranked_idx.
  if (board === 'ranked') q = q.where(sql<boolean>`w.ranked_trades > 0`);
  return q;
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

// PostgreSQL may answer bigint as text: numbers here, once.
const toTotals = (r: Record<keyof WindowTotals, unknown>): WindowTotals => ({
  id: Number(r.id),
  username: String(r.username),
  trades: Number(r.trades),
  score: Number(r.score),
  alpha_n: Number(r.alpha_n),
  alpha_sum: Number(r.alpha_sum),
  alpha_sq_sum: Number(r.alpha_sq_sum),
});

/** A board over a window: `limit` rows from `offset` by score, then trades, then id, with at least minTrades bets counted there (a range of the board's window index). */
export function windowLeaderboardQuery(db: Db, board: Board, period: Period, minTrades: number, limit: number, offset = 0) {
  const c = WINDOW_COLUMNS[board];
  return windowTotalsQuery(db, period, board)
    .where(`w.${c.trades}`, '>=', minTrades)
    .orderBy(`w.${c.score}`, 'desc')
    .orderBy(`w.${c.trades}`, 'desc')
    .orderBy('w.user_id')
    .limit(limit)
    .offset(offset);
}

export async function windowLeaderboard(db: Db, board: Board, period: Period, minTrades: number, limit: number, offset = 0): Promise<WindowTotals[]> {
  return (await windowLeaderboardQuery(db, board, period, minTrades, limit, offset).execute()).map(toTotals);
}

/** One user's place on a board: their score and trades counted there. */
export interface Placed {
  userId: number;
  score: number;
  trades: number;
}

/** One user's trades and score on a board over a window (their user_window_stats row); zeros without one. */
export async function userWindowTotals(db: Db, board: Board, userId: number, period: Period): Promise<Placed> {
  const c = WINDOW_COLUMNS[board];
  const row = await db
    .selectFrom('user_window_stats')
    .select([`${c.trades} as trades`, `${c.score} as score`])
    .where('period', '=', period)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return { userId, trades: Number(row?.trades ?? 0), score: Number(row?.score ?? 0) };
}

/**
 * How many live users with at least minTrades bets counted in the window rank
 * ahead of `me` on a board (by score, then trades, then id): the range of the
 * board's window index before `me`, counted, less the deleted accounts in it.
 */
export async function windowUsersAhead(db: Db, board: Board, period: Period, minTrades: number, me: Placed): Promise<number> {
  return Number((await usersAheadQuery(db, board, period, minTrades, me).executeTakeFirstOrThrow()).n);
}

/** The rows ranking ahead of `me` by (score desc, trades desc, user id), other than `me`'s, with at least minTrades trades. */
function aheadOf(c: { trades: string; score: string; user: string }, minTrades: number, me: Placed) {
  const ref = (column: string) => sql.ref(column);
  return sql<boolean>`${ref(c.user)} <> ${me.userId} and ${ref(c.trades)} >= ${minTrades} and ${ref(c.score)} >= ${me.score}
    and (${ref(c.score)} > ${me.score} or (${ref(c.score)} = ${me.score} and (${ref(c.trades)} > ${me.trades} or (${ref(c.trades)} = ${me.trades} and ${ref(c.user)} < ${me.userId}))))`;
}

/**
 * windowUsersAhead's count, one statement: the range of the window index
 * (the redundant `score >= me.score` makes it a range on both dialects),
 * less the deleted accounts in it (users_deleted_idx holds only those), so no
 * row of the range is joined to users.
 */
export function usersAheadQuery(db: Db, board: Board, period: Period, minTrades: number, me: Placed) {
  const c = WINDOW_COLUMNS[board];
  const cols = { trades: `w.${c.trades}`, score: `w.${c.score}`, user: 'w.user_id' };
  // The partial index's own condition, so the ranked count reads user_window_stats_ranked_idx.
  const rankedOnly = board === 'ranked' ? sql<boolean>`w.ranked_trades > 0` : sql<boolean>`1 = 1`;
  const ranged = db
    .selectFrom('user_window_stats as w')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('w.period', '=', period)
    .where(rankedOnly)
    .where(aheadOf(cols, minTrades, me));
  // CROSS JOIN: SQLite keeps the written order, so the deleted accounts (few) drive the join.
  const deleted = db
    .selectFrom('users')
    .crossJoin('user_window_stats as w')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.deleted_at', 'is not', null)
    .whereRef('w.user_id', '=', 'users.id')
    .where('w.period', '=', period)
    .where(rankedOnly)
    .where(aheadOf(cols, minTrades, me));
  return db.selectNoFrom(sql<number>`(${ranged}) - (${deleted})`.as('n'));
}

/** One user's row of a board's all-time aggregate (`leaderboard`, SPEC's, or `ranked_leaderboard`); zeros without one. */
export async function userAllTimeTotals(db: Db, board: Board, userId: number): Promise<Placed> {
  // Both tables have the same columns; the query is written once against either.
  const row = await db
    .selectFrom(`${ALL_TIME_TABLE[board]} as b` as 'leaderboard as b')
    .select(['b.total_score', 'b.total_trades'])
    .where('b.user_id', '=', userId)
    .executeTakeFirst();
  return { userId, trades: Number(row?.total_trades ?? 0), score: Number(row?.total_score ?? 0) };
}

/** How many live users rank ahead of `me` on a board's all-time aggregate: a range of its rank index counted, less the deleted accounts in it (as usersAheadQuery). */
export async function allTimeUsersAhead(db: Db, board: Board, minTrades: number, me: Placed): Promise<number> {
  const table = `${ALL_TIME_TABLE[board]} as b` as 'leaderboard as b';
  const cols = { trades: 'b.total_trades', score: 'b.total_score', user: 'b.user_id' };
  const ranged = db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(aheadOf(cols, minTrades, me));
  const deleted = db
    .selectFrom('users')
    .crossJoin(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.deleted_at', 'is not', null)
    .whereRef('b.user_id', '=', 'users.id')
    .where(aheadOf(cols, minTrades, me));
  const row = await db.selectNoFrom(sql<number>`(${ranged}) - (${deleted})`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every live user with at least minAlphaTrades bets carrying alpha on a board in the window: the rankings are computed from these. */
export async function windowAlphaTotals(db: Db, board: Board, period: Period, minAlphaTrades: number): Promise<WindowTotals[]> {
  const rows = await windowTotalsQuery(db, period, board).where(`w.${WINDOW_COLUMNS[board].alphaN}`, '>=', minAlphaTrades).execute();
  return rows.map(toTotals);
}
