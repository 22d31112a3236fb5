// The league worker: on each run, the start notices of leagues that began,
// the daily standing of running ones, and the frozen final board of ended
// ones (src/services/league-notices.ts). Runs at start and every
// SETTLEMENT_INTERVAL_SECONDS beside bet settlement, with the service's
// clock; each step is taken once by a conditional update, so instances
// sharing a database never repeat one.
import type { AppContext } from '../context.js';
import { type LeagueNoticeResult, runLeagueSteps } from '../services/league-notices.js';
import type { WorkerLogger } from './settlement.js';

export class LeagueWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<LeagueNoticeResult> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: WorkerLogger,
  ) {}

  /** One pass; concurrent calls share the pass in progress. */
  runOnce(): Promise<LeagueNoticeResult> {
    if (!this.running) {
      this.running = runLeagueSteps(this.ctx)
        .then((r) => {
          if (r.settled > 0 || r.deferred > 0) this.log.info({ ...r }, 'league worker pass');
          return r;
        })
        .finally(() => (this.running = null));
    }
    return this.running;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.runOnce().catch((err: unknown) => this.log.error({ err }, 'league worker run failed'));
    };
    tick();
    this.timer = setInterval(tick, this.ctx.config.workers.settlementIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
