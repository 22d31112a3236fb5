// Every aggregate kept beside the bets, recounted from the bets themselves:
// SPEC's leaderboard (each live user's CLOSED gains summed and counted) and the
// per-user per-day rows the windows and rankings read (user_day_stats). The
// aggregates are normally kept by the betChanged handlers, a close at a time
// (src/services/rankings.ts); this is for the rare job that changes bets
// wholesale (the commitment backfill, src/jobs/commitment-backfill.ts), run
// once in one transaction. An aggregate added later (a ranked board, league
// tallies) gets its recount here too, so such jobs recount everything at once.
import type { Db } from '../db/database.js';
import { utcDate } from '../domain/market-calendar.js';
import { alphaOf } from '../domain/rankings.js';

const PAGE = 2000;
const INSERT_ROWS = 500;

/** Recounts every aggregate from the bets; run it inside one transaction so readers never see a half-made board. */
export async function recomputeAggregates(db: Db): Promise<void> {
  await recomputeLeaderboard(db);
  await recomputeDayStats(db);
}

/** SPEC's all-time leaderboard rows: live users with a CLOSED bet (a deleted account's row is gone, as its deletion left it). */
async function recomputeLeaderboard(db: Db): Promise<void> {
  await db.deleteFrom('leaderboard').execute();
  await db
    .insertInto('leaderboard')
    .columns(['user_id', 'total_score', 'total_trades'])
    .expression(
      db
        .selectFrom('bets')
        .innerJoin('users', 'users.id', 'bets.user_id')
        .select((eb) => [
          'bets.user_id',
          eb.fn.coalesce(eb.fn.sum<number>('bets.percentage_gain'), eb.lit(0)).as('total_score'),
          eb.fn.countAll<number>().as('total_trades'),
        ])
        .where('bets.status', '=', 'CLOSED')
        .where('users.deleted_at', 'is', null)
        .groupBy('bets.user_id'),
    )
    .execute();
}

interface DayRow {
  user_id: number;
  day: string;
  trades: number;
  score_sum: number;
  wins: number;
  alpha_count: number;
  alpha_sum: number;
  alpha_sq_sum: number;
}

/** The day rows as dayStatsHandler adds them, one CLOSED bet at a time (its exit day, its gain, its alpha). */
async function recomputeDayStats(db: Db): Promise<void> {
  const rows = new Map<string, DayRow>();
  let afterId = 0;
  for (;;) {
    const page = await db
      .selectFrom('bets')
      .select(['id', 'user_id', 'direction', 'percentage_gain', 'closed_at', 'opened_at', 'benchmark_entry', 'benchmark_exit'])
      .where('status', '=', 'CLOSED')
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    for (const bet of page) {
      const gain = Number(bet.percentage_gain ?? 0);
      const day = utcDate(Number(bet.closed_at ?? bet.opened_at));
      const key = `${bet.user_id}|${day}`;
      let row = rows.get(key);
      if (!row) {
        row = { user_id: Number(bet.user_id), day, trades: 0, score_sum: 0, wins: 0, alpha_count: 0, alpha_sum: 0, alpha_sq_sum: 0 };
        rows.set(key, row);
      }
      row.trades++;
      row.score_sum += gain;
      if (gain > 0) row.wins++;
      const num = (v: number | null) => (v === null ? null : Number(v));
      const alpha = alphaOf(bet.direction, gain, num(bet.benchmark_entry), num(bet.benchmark_exit));
      if (alpha !== null) {
        row.alpha_count++;
        row.alpha_sum += alpha;
        row.alpha_sq_sum += alpha * alpha;
      }
    }
    if (page.length < PAGE) break;
    afterId = Number(page[page.length - 1].id);
  }
  await db.deleteFrom('user_day_stats').execute();
  const all = [...rows.values()];
  for (let i = 0; i < all.length; i += INSERT_ROWS) {
    await db
      .insertInto('user_day_stats')
      .values(all.slice(i, i + INSERT_ROWS))
      .execute();
  }
}
