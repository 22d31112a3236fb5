// The app's background work as one set of periodic jobs (src/jobs/schedule.ts
// lists them): started together once the app is ready, stopped together on
// close, each run counted and timed in the metrics, and its span marked for
// the stall monitor (src/ops/stalls.ts), which charges a stall to the run it overlapped.
import type { Metrics } from '../metrics.js';
import { type JobDefinition, type JobLogger, PeriodicJob } from './periodic-job.js';

export class JobRunner {
  private readonly jobs: Array<PeriodicJob<unknown>> = [];

  constructor(private readonly o: { log: JobLogger; metrics?: Metrics }) {}

  add<T>(definition: JobDefinition<T>): PeriodicJob<T> {
    const { metrics } = this.o;
    const job = new PeriodicJob(
      definition,
      this.o.log,
      metrics
        ? (name) => {
            const spanEnded = metrics.jobStarted(name);
            return (seconds, ok) => {
              spanEnded();
              metrics.jobRuns.inc({ job: name, outcome: ok ? 'ok' : 'failed' });
              metrics.jobDuration.observe({ job: name }, seconds);
            };
          }
        : undefined,
    );
    this.jobs.push(job as PeriodicJob<unknown>);
    return job;
  }

  start(): void {
    for (const job of this.jobs) job.start();
  }

  /** Stops every job and waits for the runs in progress (each records what it did). */
  async stop(): Promise<void> {
    await Promise.all(this.jobs.map((job) => job.stop()));
  }
}
