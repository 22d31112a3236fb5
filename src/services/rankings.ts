// Leaderboard windows, the ranked board and the skill ranking, served from the
// all-time and the per-user per-day aggregates, which betChanged handlers keep
// in each close's and settlement's own transaction. SPEC's board counts every
// closed bet's gain; the ranked board and the rankings count ranked gains
// only (docs/rankings.md).
import type { CompiledQuery } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { utcDate } from '../domain/market-calendar.js';
import { alphaOf, compareRanked, type Period, rankedCount, skillOf, windowStartDay } from '../domain/rankings.js';
import { addToLeaderboardStatement, leaderboardQuery } from '../repositories/bets.js';
import {
  addToDayStatsStatement,
  addToRankedLeaderboardStatement,
  allTimeUsersAhead,
  type Board,
  type Placed,
  rankedLeaderboardQuery,
  userAllTimeTotals,
  userWindowTotals,
  windowAlphaTotals,
  windowLeaderboard,
  windowUsersAhead,
} from '../repositories/rankings.js';
import type { LeaderboardUser } from '../schemas/bets.js';
import type { MyStandingResponse, RankingRow, RankingsResponse, StandingWindow } from '../schemas/rankings.js';
import type { BetEvent } from './events.js';
import { LEADERBOARD_SIZE } from './bets.js';
import { currentWindows } from './window-totals.js';

/** What the leaderboards and rankings use of the context. */
export type RankingDeps = Pick<AppContext, 'db' | 'database' | 'clock' | 'sharedAnswers'>;

export const RANKINGS_SIZE = 100;

/**
 * What a close or settlement adds to its owner's aggregates, as statements
 * sent with the other writes of a finished bet (src/services/bet-aggregates.ts),
 * in this order: its gain to SPEC's all-time row; its ranked gain, when it is
 * ranked, to the ranked board's all-time row; and to its owner's row for the
 * exit day, its gain and alpha to the raw sums and, when it is ranked, its
 * ranked gain and ranked alpha to the ranked sums (one statement for both).
 * Cancels never count.
 */
export function aggregateStatements(trx: Db, { kind, bet, at }: BetEvent): CompiledQuery[] {
  if (kind !== 'closed' && kind !== 'settled') return [];
  const gain = bet.percentage_gain ?? 0;
  return [
    addToLeaderboardStatement(trx, bet.user_id, gain),
    ...(bet.ranked_gain === null ? [] : [addToRankedLeaderboardStatement(trx, bet.user_id, bet.ranked_gain)]),
    addToDayStatsStatement(trx, {
      userId: bet.user_id,
      day: utcDate(bet.closed_at ?? at),
      gain,
      alpha: alphaOf(bet.direction, gain, bet.benchmark_entry, bet.benchmark_exit),
      ranked: rankedCount(bet),
    }),
  ];
}

export interface WindowQuery {
  period?: Period;
  min_trades?: number;
  limit?: number;
  offset?: number;
}

/**
 * SPEC's leaderboard, narrowed and paged: with no period the all-time
 * aggregate (SPEC's default, exactly), else the rolling window's day rows;
 * min_trades drops users with fewer closed bets in the window; without
 * limit and offset, the top 100.
 */
export async function windowedLeaderboard(ctx: RankingDeps, q: WindowQuery): Promise<LeaderboardUser[]> {
  const minTrades = q.min_trades ?? 1;
  const limit = q.limit ?? LEADERBOARD_SIZE;
  const offset = q.offset ?? 0;
  if (q.period === undefined) {
    return leaderboardQuery(ctx.db, limit, offset).where('leaderboard.total_trades', '>=', minTrades).execute();
  }
  await currentWindows(ctx);
  const rows = await windowLeaderboard(ctx.db, 'raw', q.period, minTrades, limit, offset);
  return rows.map((r) => ({ id: r.id, username: r.username, total_score: r.score, total_trades: r.trades }));
}

/**
 * The ranked board, narrowed and paged as SPEC's: the sum of each user's
 * ranked gains and their count, from its own all-time aggregate without a
 * period, else from the ranked sums of the window's day rows.
 */
export async function windowedRankedLeaderboard(ctx: RankingDeps, q: WindowQuery): Promise<LeaderboardUser[]> {
  const minTrades = q.min_trades ?? 1;
  const limit = q.limit ?? LEADERBOARD_SIZE;
  const offset = q.offset ?? 0;
  if (q.period === undefined) return rankedLeaderboardQuery(ctx.db, minTrades, limit, offset).execute();
  await currentWindows(ctx);
  const rows = await windowLeaderboard(ctx.db, 'ranked', q.period, minTrades, limit, offset);
  return rows.map((r) => ({ id: r.id, username: r.username, total_score: r.score, total_trades: r.trades }));
}

/** Requests with the same key get the same board (which board, and the window's start day, included). */
function leaderboardKey(ctx: RankingDeps, board: Board, q: WindowQuery): string {
  const start = q.period === undefined ? '' : windowStartDay(q.period, ctx.clock.now());
  return `${board}|${q.period ?? 'spec'}|${start}|${q.min_trades ?? 1}|${q.limit ?? LEADERBOARD_SIZE}|${q.offset ?? 0}`;
}

/** The windows GET /me/standing reports, `all` (SPEC's board) first. */
const STANDING_PERIODS = ['all', '7d', '30d', '90d', '365d'] as const satisfies readonly Period[];

/**
 * GET /me/standing: the caller's score, trades and rank in every window of
 * both boards (`windows`: GET /leaderboard, SPEC's raw gains; `ranked_windows`:
 * GET /leaderboard/ranked), read from the aggregates (the all-time rows, the
 * caller's window rows) and counted against the same aggregates those boards
 * list, so each rank is the caller's place there. Unranked with fewer bets
 * counted in a window than minTrades.
 */
export async function myStanding(ctx: RankingDeps, userId: number, minTrades: number): Promise<MyStandingResponse> {
  await currentWindows(ctx);
  const place = async (board: Board, period: (typeof STANDING_PERIODS)[number]): Promise<StandingWindow> => {
    const me: Placed = period === 'all' ? await userAllTimeTotals(ctx.db, board, userId) : await userWindowTotals(ctx.db, board, userId, period);
    let rank: number | null = null;
    if (me.trades >= minTrades) {
      const ahead =
        period === 'all' ? await allTimeUsersAhead(ctx.db, board, minTrades, me) : await windowUsersAhead(ctx.db, board, period, minTrades, me);
      rank = ahead + 1;
    }
    return { period, total_score: me.score, total_trades: me.trades, rank };
  };
  const [windows, rankedWindows] = await Promise.all([
    Promise.all(STANDING_PERIODS.map((p) => place('raw', p))),
    Promise.all(STANDING_PERIODS.map((p) => place('ranked', p))),
  ]);
  return { min_trades: minTrades, windows, ranked_windows: rankedWindows };
}

/** GET /leaderboard: everyone asks for the same few, so each is shared (src/services/shared-answers.ts). */
export function leaderboard(ctx: RankingDeps, q: WindowQuery): Promise<LeaderboardUser[]> {
  return ctx.sharedAnswers.leaderboard(leaderboardKey(ctx, 'raw', q), () => windowedLeaderboard(ctx, q));
}

/** GET /leaderboard/ranked: shared as GET /leaderboard is, and dropped with it when a close or settlement commits. */
export function rankedLeaderboard(ctx: RankingDeps, q: WindowQuery): Promise<LeaderboardUser[]> {
  return ctx.sharedAnswers.leaderboard(leaderboardKey(ctx, 'ranked', q), () => windowedRankedLeaderboard(ctx, q));
}

/**
 * The skill ranking over a window, from ranked bets only (ranked alpha: from
 * the committed prices, so a close inside the cancel window, riskless, never
 * counts); with a caller, their own row when it falls outside the top rows.
 */
export async function rankings(ctx: RankingDeps, q: { period: Period; min_trades: number }, callerId: number | null): Promise<RankingsResponse> {
  await currentWindows(ctx);
  const totals = await windowAlphaTotals(ctx.db, 'ranked', q.period, q.min_trades);
  const ranked = totals
    .map((t) => {
      const s = skillOf({ n: t.alpha_n, sum: t.alpha_sum, sumSq: t.alpha_sq_sum });
      return s && { id: t.id, username: t.username, n: s.n, mean_alpha: s.mean_alpha, skill: s.skill, total_score: t.score };
    })
    .filter((r) => r !== null)
    .sort(compareRanked);
  const withRank = (i: number): RankingRow => ({ rank: i + 1, ...ranked[i] });
  const rows = ranked.slice(0, RANKINGS_SIZE).map((_, i) => withRank(i));
  const mine = callerId === null ? -1 : ranked.findIndex((r) => r.id === callerId);
  return { period: q.period, min_trades: q.min_trades, rows, me: mine >= RANKINGS_SIZE ? withRank(mine) : null };
}
