// Every piece of background work is a PeriodicJob: a run function repeated at
// an interval, one run at a time. The timer waits for a run to end before it
// counts down again, so a slow run is never overlapped by the next; calls of
// runOnce() while a run is in progress share it (tests drive jobs this way).
// stop() aborts the signal the run was given (a long run hands back what it
// has not started) and waits for the run to finish, so a shutdown never cuts a
// run short between a side effect and its record.

export interface JobLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobDefinition<T> {
  /** Names the job in logs and metrics. */
  name: string;
  /** Pause between the end of one run and the start of the next (also after a failed run). */
  intervalMs: number;
  /** One pass. The signal is aborted when the job is being stopped. */
  run(signal: AbortSignal): Promise<T>;
  /** Whether to go again at once rather than after intervalMs (the outbox while it has a backlog). */
  again?(result: T): boolean;
}

/**
 * Told when each run starts, and through the function it returns, the run's
 * outcome and duration (the metrics, and the stall monitor's span of the run).
 */
export type RunObserver = (job: string) => (seconds: number, ok: boolean) => void;

export class PeriodicJob<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;
  private started = false;
  private controller = new AbortController();

  constructor(
    readonly definition: JobDefinition<T>,
    private readonly log?: JobLogger,
    private readonly observe?: RunObserver,
  ) {}

  get name(): string {
    return this.definition.name;
  }

  /** One run now; a call while a run is in progress gets that run's result. */
  runOnce(): Promise<T> {
    if (this.running) return this.running;
    const started = performance.now();
    const ended = this.observe?.(this.name);
    const done = (ok: boolean) => ended?.((performance.now() - started) / 1000, ok);
    this.running = this.definition
      .run(this.controller.signal)
      .then(
        (result) => {
          done(true);
          return result;
        },
        (err: unknown) => {
          done(false);
          throw err;
        },
      )
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Runs now, then again intervalMs after each run ends, until stop(). */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.controller.signal.aborted) this.controller = new AbortController();
    const tick = async (): Promise<void> => {
      let again = false;
      try {
        const result = await this.runOnce();
        again = this.definition.again?.(result) ?? false;
      } catch (err) {
        this.log?.error({ err }, `${this.name} run failed`);
      }
      if (!this.started) return;
      this.timer = setTimeout(() => void tick(), again ? 0 : this.definition.intervalMs);
      this.timer.unref();
    };
    void tick();
  }

  /** Stops the timer, tells the run in progress to wrap up, and waits for it. */
  async stop(): Promise<void> {
    this.started = false;
    this.controller.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
