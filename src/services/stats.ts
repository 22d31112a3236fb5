import type { AppContext } from '../context.js';
import { cancelRate, tradeStats, traderFigures } from '../domain/stats.js';
import { notFound } from '../errors.js';
import { closedBetsOf, statusCounts, tailsOf } from '../repositories/stats.js';
import { countFollowers } from '../repositories/follows.js';
import { findUserById } from '../repositories/users.js';
import type { TraderStats } from '../schemas/stats.js';

/** The part of the context this module uses. */
export type StatsDeps = Pick<AppContext, 'db'>;

const MAX_POINTS = 1000;

function sample<T>(points: T[]): T[] {
  if (points.length <= MAX_POINTS) return points;
  const step = points.length / MAX_POINTS;
  const out = Array.from({ length: MAX_POINTS - 1 }, (_, i) => points[Math.floor(i * step)]);
  out.push(points[points.length - 1]);
  return out;
}

export async function traderStats(ctx: StatsDeps, userId: number): Promise<TraderStats> {
  if (!(await findUserById(ctx.db, userId))) throw notFound('User not found');
  const [closedRows, counts, tails, followers] = await Promise.all([
    closedBetsOf(ctx.db, userId),
    statusCounts(ctx.db, userId),
    tailsOf(ctx.db, userId),
    countFollowers(ctx.db, userId),
  ]);
  const { curve, ...figures } = traderFigures(
    closedRows.map((b) => ({
      percentage_gain: b.percentage_gain ?? 0,
      ranked_gain: b.ranked_gain,
      opened_at: b.opened_at,
      closed_at: b.closed_at ?? b.opened_at,
    })),
  );
  const opened = (counts.OPEN ?? 0) + (counts.CLOSED ?? 0) + (counts.CANCELLED ?? 0);
  // How tailers fared: their closes' raw gains (a tail is the follower's bet, not this trader's score).
  const tailOutcome = tradeStats(
    tails.filter((t) => t.status === 'CLOSED').map((t) => ({ gain: t.percentage_gain ?? 0, opened_at: 0, closed_at: 0 })),
  );
  return {
    user_id: userId,
    opened_trades: opened,
    open_trades: counts.OPEN ?? 0,
    cancelled_trades: counts.CANCELLED ?? 0,
    ...figures,
    cancel_rate: cancelRate(opened, counts.CANCELLED ?? 0),
    followers,
    tailers: {
      tails: tails.length,
      closed: tailOutcome.trades,
      average_gain: tailOutcome.average_gain,
      win_rate: tailOutcome.win_rate,
    },
    curve: sample(curve).map((p) => ({ t: new Date(p.at).toISOString(), value: p.value })),
  };
}
