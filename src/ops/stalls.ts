// Stalls of the event loop: stretches over STALL_MS in which nothing else ran
// (no request read, no timer fired). A 10 ms interval timer measures its own
// lateness; a tick late by more than STALL_MS closes a stall that ended now
// and began when the tick was due. Each stall is then attributed to what ran
// meanwhile: a periodic job whose run overlapped it (the runner marks every
// run's span), a garbage collection (a PerformanceObserver on 'gc' entries),
// or else the requests. The attribution is a pure function (attributeStall)
// so it is tested without timers.
import { constants, monitorEventLoopDelay, PerformanceObserver, performance, type IntervalHistogram } from 'node:perf_hooks';

/** A stall shorter than this is ordinary latency, not a stop of the loop. */
export const STALL_MS = 20;
const TICK_MS = 10;
/**
 * A stall is attributed this long after it ended: GC entries reach their
 * observer asynchronously, after the tick that saw the stall.
 */
const SETTLE_MS = 50;
/** Ended job spans and GC pauses older than this cannot overlap a pending stall. */
const KEEP_MS = 10_000;

/** An interval on performance.now()'s clock, in milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface JobSpan extends Interval {
  name: string;
}

export interface AttributedStall extends Interval {
  cause: string;
}

/** A garbage collection's pause; `full` for a mark-compact of the whole heap. */
export interface GcPause extends Interval {
  full?: boolean;
}

/** Drops the leading intervals that ended before `horizon` (both lists are kept in the order they ended). */
function dropEndedBefore(list: Interval[], horizon: number): void {
  let n = 0;
  while (n < list.length && list[n]!.end < horizon) n++;
  if (n > 0) list.splice(0, n);
}

const overlap = (a: Interval, b: Interval) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/**
 * What a stall is charged to: `gc` when garbage collection's pauses fill at
 * least half of it and overlap it at least as much as any one job's run, else
 * `job:<name>` of the run that overlapped it most, else `gc` when a full
 * collection paused within it, else `requests` (handlers, serialisation,
 * compression: whatever else the loop was doing). Half, because a loop
 * saturated by requests runs scavenges of a few milliseconds all along: a
 * 100 ms turn holding a 2 ms scavenge is the requests' turn, not GC's. A full
 * collection is the exception: V8 marks and sweeps on threads of its own,
 * which take the core from the event loop where the service has one core (as
 * the benchmark pins it), so the turn around a pause of a few milliseconds
 * lasts several times as long (docs/performance.md, "Where the time goes").
 * A job's span covers its
 * awaits too, so a request's stall during a long run is charged to the run:
 * the label names the suspect, the per-job durations
 * (job_run_duration_seconds) tell more.
 */
export function attributeStall(stall: Interval, spans: readonly JobSpan[], gcs: readonly GcPause[]): string {
  let gc = 0;
  let full = false;
  for (const g of gcs) {
    const o = overlap(stall, g);
    gc += o;
    if (o > 0 && g.full) full = true;
  }
  let best: JobSpan | null = null;
  let bestOverlap = 0;
  for (const s of spans) {
    const o = overlap(stall, s);
    if (o > bestOverlap) {
      best = s;
      bestOverlap = o;
    }
  }
  if (gc > 0 && gc >= (stall.end - stall.start) / 2 && gc >= bestOverlap) return 'gc';
  if (best) return `job:${best.name}`;
  if (full) return 'gc';
  return 'requests';
}

/** What the monitor tells of each attributed stall and of the delay distribution. */
export interface StallSink {
  stall(cause: string, seconds: number): void;
}

export class StallMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: TICK_MS });
  private timer: NodeJS.Timeout | null = null;
  private observer: PerformanceObserver | null = null;
  private lastTick = 0;
  private readonly running = new Map<number, { name: string; start: number }>();
  private nextRun = 0;
  private readonly spans: JobSpan[] = [];
  private readonly gcs: GcPause[] = [];
  private pending: Interval[] = [];

  constructor(private readonly sink: StallSink) {}

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as { detail?: { kind?: number } }).detail?.kind;
        this.gcs.push({ start: e.startTime, end: e.startTime + e.duration, full: kind === constants.NODE_PERFORMANCE_GC_MAJOR });
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
    this.lastTick = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.observer?.disconnect();
    this.observer = null;
    this.histogram.disable();
    this.attribute(Number.POSITIVE_INFINITY);
  }

  /** Marks the start of a job's run; the function returned marks its end. */
  jobStarted(name: string): () => void {
    const id = this.nextRun++;
    this.running.set(id, { name, start: performance.now() });
    return () => {
      const run = this.running.get(id);
      if (!run) return;
      this.running.delete(id);
      this.spans.push({ ...run, end: performance.now() });
    };
  }

  /** Event-loop delay since the last reset, in seconds: its maximum and 99th percentile. */
  delay(): { max: number; p99: number } {
    return { max: this.histogram.max / 1e9, p99: this.histogram.percentile(99) / 1e9 };
  }

  resetDelay(): void {
    this.histogram.reset();
  }

  /** Attributes every stall that has ended, now (before a scrape reads the results). */
  flush(): void {
    this.attribute(Number.POSITIVE_INFINITY);
  }

  private tick(): void {
    const now = performance.now();
    const late = now - this.lastTick - TICK_MS;
    if (late > STALL_MS) this.pending.push({ start: now - late, end: now });
    this.lastTick = now;
    this.attribute(now - SETTLE_MS);
  }

  /** Attributes the pending stalls that ended before `settledBefore`, then forgets what no later stall can overlap. */
  private attribute(settledBefore: number): void {
    const now = performance.now();
    if (this.pending.length > 0) {
      const spans = [...this.spans, ...[...this.running.values()].map((r) => ({ ...r, end: now }))];
      const later: Interval[] = [];
      for (const stall of this.pending) {
        if (stall.end > settledBefore) later.push(stall);
        else this.sink.stall(attributeStall(stall, spans, this.gcs), (stall.end - stall.start) / 1000);
      }
      this.pending = later;
    }
    const horizon = now - KEEP_MS;
    dropEndedBefore(this.spans, horizon);
    dropEndedBefore(this.gcs, horizon);
  }
}
