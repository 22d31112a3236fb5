// The service's event-loop stalls around each scenario: its metrics
// (src/metrics.ts, src/ops/stalls.ts) are scraped just before and just after
// the measured load. The longest-stall gauges and the loop delay's max and p99
// are reset by every scrape, so the "after" scrape holds the scenario's own;
// the stall counters are differenced.

/** What one scrape says of the stalls. */
export interface StallScrape {
  /** event_loop_stalls_total by cause. */
  counts: Record<string, number>;
  /** event_loop_stall_longest_seconds by cause: since the previous scrape. */
  longestS: Record<string, number>;
  delayMaxS: number | null;
  delayP99S: number | null;
  /** db_checkpoint_waits_total and db_checkpoint_wait_seconds_total (SQLite); 0 where the service has none. */
  checkpointWaits: number;
  checkpointWaitS: number;
  /** nodejs_gc_duration_seconds' count and sum of kind major (full mark-compacts); 0 where the metrics have none. */
  fullGcs: number;
  fullGcS: number;
}

/** A scenario's stalls, over every instance of the service. */
export interface StallSummary {
  /** The longest stall (ms) and what it was charged to (gc, job:<name>, requests); 0 and null when none. */
  longestMs: number;
  cause: string | null;
  /** Stalls over 20 ms, in all and by cause. */
  count: number;
  byCause: Record<string, number>;
  /** The event-loop delay over the scenario (monitorEventLoopDelay, 10 ms resolution). */
  delayMaxMs: number | null;
  delayP99Ms: number | null;
  /** Times writes waited for a WAL checkpoint, and for how long in all (ms): a write path that idles the thread. Absent from reports before 2026-12-02. */
  checkpointWaits?: number;
  checkpointWaitMs?: number;
  /** Full collections (mark-compacts) of the service's heap during the load, and their pauses' total (ms). Absent from reports before 2026-12-02. */
  fullGcs?: number;
  fullGcMs?: number;
}

const LABELLED = /^(event_loop_stalls_total|event_loop_stall_longest_seconds)\{cause="((?:[^"\\]|\\.)*)"\} (\S+)/;
const FULL_GC = /^nodejs_gc_duration_seconds_(count|sum)\{kind="major"\} (\S+)/;
const PLAIN = /^(event_loop_delay_max_seconds|event_loop_delay_p99_seconds|db_checkpoint_waits_total|db_checkpoint_wait_seconds_total) (\S+)/;
const unescapeLabel = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** The stall figures of a Prometheus text exposition. */
export function parseStallMetrics(text: string): StallScrape {
  const out: StallScrape = {
    counts: {},
    longestS: {},
    delayMaxS: null,
    delayP99S: null,
    checkpointWaits: 0,
    checkpointWaitS: 0,
    fullGcs: 0,
    fullGcS: 0,
  };
  for (const line of text.split('\n')) {
    const g = FULL_GC.exec(line);
    if (g && Number.isFinite(Number(g[2]))) {
      if (g[1] === 'count') out.fullGcs = Number(g[2]);
      else out.fullGcS = Number(g[2]);
      continue;
    }
    const l = LABELLED.exec(line);
    if (l) {
      const value = Number(l[3]);
      if (!Number.isFinite(value)) continue;
      (l[1] === 'event_loop_stalls_total' ? out.counts : out.longestS)[unescapeLabel(l[2]!)] = value;
      continue;
    }
    const p = PLAIN.exec(line);
    if (p && Number.isFinite(Number(p[2]))) {
      const value = Number(p[2]);
      if (p[1] === 'event_loop_delay_max_seconds') out.delayMaxS = value;
      else if (p[1] === 'event_loop_delay_p99_seconds') out.delayP99S = value;
      else if (p[1] === 'db_checkpoint_waits_total') out.checkpointWaits = value;
      else out.checkpointWaitS = value;
    }
  }
  return out;
}

const ms = (s: number | null) => (s === null ? null : s * 1000);

/** One instance's stalls between two scrapes. */
export function stallsBetween(before: StallScrape, after: StallScrape): StallSummary {
  const byCause: Record<string, number> = {};
  for (const [cause, n] of Object.entries(after.counts)) {
    const d = n - (before.counts[cause] ?? 0);
    if (d > 0) byCause[cause] = d;
  }
  let longestMs = 0;
  let cause: string | null = null;
  for (const [c, s] of Object.entries(after.longestS)) {
    if (s * 1000 > longestMs) {
      longestMs = s * 1000;
      cause = c;
    }
  }
  const count = Object.values(byCause).reduce((a, b) => a + b, 0);
  return {
    longestMs,
    cause,
    count,
    byCause,
    delayMaxMs: ms(after.delayMaxS),
    delayP99Ms: ms(after.delayP99S),
    checkpointWaits: Math.max(0, after.checkpointWaits - before.checkpointWaits),
    checkpointWaitMs: Math.max(0, after.checkpointWaitS - before.checkpointWaitS) * 1000,
    fullGcs: Math.max(0, after.fullGcs - before.fullGcs),
    fullGcMs: Math.max(0, after.fullGcS - before.fullGcS) * 1000,
  };
}

const maxOrNull = (xs: Array<number | null>) => {
  const known = xs.filter((x): x is number => x !== null);
  return known.length ? Math.max(...known) : null;
};

/** Several instances (or runs) as one: the longest stall of all, the counts summed, the largest delays. */
export function mergeStalls(list: StallSummary[]): StallSummary | null {
  if (list.length === 0) return null;
  const longest = list.reduce((a, b) => (b.longestMs > a.longestMs ? b : a));
  const byCause: Record<string, number> = {};
  for (const s of list) for (const [c, n] of Object.entries(s.byCause)) byCause[c] = (byCause[c] ?? 0) + n;
  return {
    longestMs: longest.longestMs,
    cause: longest.cause,
    count: list.reduce((a, s) => a + s.count, 0),
    byCause,
    delayMaxMs: maxOrNull(list.map((s) => s.delayMaxMs)),
    delayP99Ms: maxOrNull(list.map((s) => s.delayP99Ms)),
    checkpointWaits: list.reduce((a, s) => a + (s.checkpointWaits ?? 0), 0),
    checkpointWaitMs: list.reduce((a, s) => a + (s.checkpointWaitMs ?? 0), 0),
    fullGcs: list.reduce((a, s) => a + (s.fullGcs ?? 0), 0),
    fullGcMs: list.reduce((a, s) => a + (s.fullGcMs ?? 0), 0),
  };
}

/** A scrape of the service's metrics, or null when it does not answer (the run goes on without stall figures). */
export async function scrapeStalls(metricsUrl: string): Promise<StallScrape | null> {
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return null;
    return parseStallMetrics(await res.text());
  } catch {
    return null;
  }
}

/** "writes waited for checkpoints 12 times, 840 ms in all", or null when they never did. */
export function checkpointWaitText(s: StallSummary | null | undefined): string | null {
  if (!s?.checkpointWaits) return null;
  const times = s.checkpointWaits === 1 ? 'once' : `${s.checkpointWaits.toLocaleString('en-US')} times`;
  return `writes waited for a checkpoint ${times}, ${(s.checkpointWaitMs ?? 0).toLocaleString('en-US', { maximumFractionDigits: 0 })} ms in all`;
}

/**
 * "667 ms (job:record publication), 4 stalls", or "none over 20 ms"; then
 * "; 3 full GCs" when the heap was fully collected during the load (V8's
 * marking threads take the service's one core from the loop meanwhile).
 */
export function stallText(s: StallSummary | null | undefined): string {
  if (!s) return '—';
  const gcs = s.fullGcs ? `; ${s.fullGcs === 1 ? '1 full GC' : `${s.fullGcs.toLocaleString('en-US')} full GCs`}` : '';
  if (s.count === 0 || s.cause === null) return `none over 20 ms${gcs}`;
  const n = s.count === 1 ? '1 stall' : `${s.count.toLocaleString('en-US')} stalls`;
  return `${s.longestMs.toLocaleString('en-US', { maximumFractionDigits: 0 })} ms (${s.cause}), ${n}${gcs}`;
}
