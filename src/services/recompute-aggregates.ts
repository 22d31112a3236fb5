// Every aggregate kept beside the bets, recounted from the bets themselves:
// SPEC's leaderboard (each live user's CLOSED gains summed and counted) and the
// per-user per-day rows the windows and rankings read (user_day_stats). The
// aggregates are normally kept by the betChanged handlers, a close at a time
// (src/services/rankings.ts); this is for the rare job that changes bets
// wholesale (the commitment backfill, src/jobs/commitment-backfill.ts), run
// once in one transaction. An aggregate added later (a ranked board, league
// tallies) gets its recount here too, so such jobs recount everything at once.
import type { Db } from '../db/database.js';
import type { UserDayStatsTable } from '../db/tables.js';
import { utcDate } from '../domain/market-calendar.js';
import { alphaOf } from '../domain/rankings.js';
import { pageOfClosedBets, rewriteDayStats, rewriteLeaderboard } from '../repositories/aggregates.js';

const PAGE = 2000;

/** Recounts every aggregate from the bets; run it inside one transaction so readers never see a half-made board. */
export async function recomputeAggregates(db: Db): Promise<void> {
  await rewriteLeaderboard(db);
  await rewriteDayStats(db, await dayStatsOfBets(db));
}

const num = (v: number | null) => (v === null ? null : Number(v));

/** The day rows as dayStatsHandler adds them, one CLOSED bet at a time (its exit day, its gain, its alpha). */
async function dayStatsOfBets(db: Db): Promise<UserDayStatsTable[]> {
  const rows = new Map<string, UserDayStatsTable>();
  let afterId = 0;
  for (;;) {
    const page = await pageOfClosedBets(db, afterId, PAGE);
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
  return [...rows.values()];
}
