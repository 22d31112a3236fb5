// The league worker: on each run, the start notices of leagues that began,
// the daily standing of running ones, and the frozen final board of ended
// ones (src/services/league-notices.ts). Runs at start and every
// SETTLEMENT_INTERVAL_SECONDS beside bet settlement, with the service's
// clock; each step is taken once by a conditional update, so instances
// sharing a database never repeat one.
import type { AppContext } from '../context.js';
import { type LeagueNoticeDeps, type LeagueNoticeResult, runLeagueSteps } from '../services/league-notices.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

/** The part of the context this module uses. */
export type LeagueJobDeps = Pick<AppContext, 'config'> & LeagueNoticeDeps;

export function leagueJob(ctx: LeagueJobDeps, log: JobLogger): JobDefinition<LeagueNoticeResult> {
  return {
    name: 'league worker',
    intervalMs: ctx.config.workers.settlementIntervalMs,
    run: async () => {
      const r = await runLeagueSteps(ctx);
      if (r.settled > 0 || r.deferred > 0) log.info({ ...r }, 'league worker pass');
      return r;
    },
  };
}
