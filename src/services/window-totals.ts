// Keeps every rolling window's start on the clock's current day before a
// window is read: the first read of a new UTC day (on any instance) moves the
// starts in one transaction, each move recounting only the users with day rows
// it crosses (src/repositories/window-totals.ts); every later read finds them
// current in one small query.
import type { AppContext } from '../context.js';
import { PERIODS, windowStartDay } from '../domain/rankings.js';
import { lockWindowTotals, moveWindowStart, windowStarts } from '../repositories/window-totals.js';

export type WindowTotalsDeps = Pick<AppContext, 'db' | 'database' | 'clock'>;

/** The windows whose start is not the one the clock's day gives, with both starts. */
function behind(starts: Map<string, string>, now: number): Array<{ period: (typeof PERIODS)[number]; from: string; to: string }> {
  const out = [];
  for (const period of PERIODS) {
    const to = windowStartDay(period, now) ?? '';
    const from = starts.get(period);
    if (from === undefined) throw new Error(`window_starts has no row for ${period}`);
    if (from !== to) out.push({ period, from, to });
  }
  return out;
}

/** Resolves once every window's rows count exactly the day rows from the window's start for the clock's current day. */
export async function currentWindows(ctx: WindowTotalsDeps): Promise<void> {
  const now = ctx.clock.now();
  if (behind(await windowStarts(ctx.db), now).length === 0) return;
  await ctx.database.transaction(async (trx) => {
    await lockWindowTotals(trx);
    // Read again under the lock: another request or instance may have moved them meanwhile.
    for (const move of behind(await windowStarts(trx), now)) await moveWindowStart(trx, move.period, move.from, move.to);
  });
}
