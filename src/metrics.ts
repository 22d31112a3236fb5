// Prometheus metrics. Each app has its own registry (tests build many apps in
// one process); the HTTP layer feeds request rate and latency, and the other
// parts feed the instruments below through ctx.metrics. They are served on a
// separate port (METRICS_PORT) so they never sit on the public API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { StallMonitor } from './ops/stalls.js';

export class Metrics {
  readonly registry = new Registry();

  /** Requests by route pattern (never the raw URL: ids would explode the label set). */
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** labels() children by label values: prom-client hashes the label object on every labels() call. */
  private readonly requestChildren = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();
  /** How late the settlement worker runs: now minus the oldest due, unsettled bet's settle_at. */
  readonly settlementLag = new Gauge({
    name: 'settlement_lag_seconds',
    help: 'Age of the oldest bet due for settlement and not yet settled (0 when none)',
    registers: [this.registry],
  });
  readonly outboxDepth = new Gauge({
    name: 'outbox_depth',
    help: 'Undelivered outbox entries, by channel',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  readonly outboxDeliveryFailures = new Counter({
    name: 'outbox_delivery_failures_total',
    help: 'Failed outbox delivery attempts, by channel',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  /** Every periodic job (src/jobs/periodic-job.ts): its runs by outcome and how long each took. */
  readonly jobRuns = new Counter({
    name: 'job_runs_total',
    help: 'Runs of the periodic jobs, by job and outcome (ok or failed)',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'job_run_duration_seconds',
    help: 'Time one run of a periodic job took, by job',
    labelNames: ['job'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly providerErrors = new Counter({
    name: 'provider_errors_total',
    help: 'Errors from external providers (prices, payments, messaging), by provider',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  readonly priceCacheHits = new Counter({
    name: 'price_cache_hits_total',
    help: 'Price look-ups answered from the cache',
    registers: [this.registry],
  });
  readonly priceCacheMisses = new Counter({
    name: 'price_cache_misses_total',
    help: 'Price look-ups that went to the provider',
    registers: [this.registry],
  });
  /** Event-loop stalls over 20 ms (src/ops/stalls.ts), by what they are charged to: gc, job:<name> or requests. */
  readonly stalls = new Counter({
    name: 'event_loop_stalls_total',
    help: 'Stretches over 20 ms in which the event loop ran nothing else, by cause (gc, job:<name>, requests)',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  readonly stallSeconds = new Counter({
    name: 'event_loop_stall_seconds_total',
    help: 'Time the event loop spent in stalls over 20 ms, by cause',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  /** Reset by every scrape: a scraper reads the longest stall since its previous scrape (the benchmark scrapes around each scenario). */
  readonly stallLongest = new Gauge({
    name: 'event_loop_stall_longest_seconds',
    help: 'Longest event-loop stall since the previous scrape, by cause',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  readonly loopDelayMax = new Gauge({
    name: 'event_loop_delay_max_seconds',
    help: 'Largest event-loop delay since the previous scrape (monitorEventLoopDelay, 10 ms resolution)',
    registers: [this.registry],
  });
  readonly loopDelayP99 = new Gauge({
    name: 'event_loop_delay_p99_seconds',
    help: '99th percentile of the event-loop delay since the previous scrape (monitorEventLoopDelay, 10 ms resolution)',
    registers: [this.registry],
  });
  /** Started with the process metrics (or on request in tests); null when off. */
  readonly stallMonitor: StallMonitor | null;
  private longest = new Map<string, number>();

  // Running totals the database keeps (read at scrape time), exposed as counters.
  private readonly groupCommitTransactions = new TotalCounter(
    this.registry,
    'db_group_commit_transactions_total',
    'Write transactions committed through SQLite group commit',
  );
  private readonly groupCommitBatches = new TotalCounter(
    this.registry,
    'db_group_commit_batches_total',
    'Commits those transactions shared, each with one WAL sync: transactions over batches is how many a sync serves',
  );
  private readonly checkpointWaits = new TotalCounter(
    this.registry,
    'db_checkpoint_waits_total',
    'Times SQLite writes waited for a WAL checkpoint because the WAL had outrun the checkpoint worker',
  );
  private readonly checkpointWaitSeconds = new TotalCounter(
    this.registry,
    'db_checkpoint_wait_seconds_total',
    'Time SQLite writes spent waiting for those checkpoints',
  );

  observeGroupCommit(stats: { transactions: number; batches: number }): void {
    this.groupCommitTransactions.observe(stats.transactions);
    this.groupCommitBatches.observe(stats.batches);
  }

  observeCheckpoints(stats: { waits: number; waitedMs: number }): void {
    this.checkpointWaits.observe(stats.waits);
    this.checkpointWaitSeconds.observe(stats.waitedMs / 1000);
  }

  readonly databaseUp = new Gauge({
    name: 'database_up',
    help: '1 when the last health check reached the database, else 0',
    registers: [this.registry],
  });

  /** One answered request: its method, route pattern, status and duration in seconds. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = { count: this.httpRequests.labels(method, route, String(status)), duration: this.httpDuration.labels(method, route) };
      this.requestChildren.set(key, child);
    }
    child.count.inc();
    child.duration.observe(seconds);
  }

  private server: http.Server | null = null;
  private readonly scrapeHooks: Array<() => Promise<void>> = [];

  /** Runs before each scrape, to set gauges that are cheapest read on demand (settlement lag, outbox depth). */
  onScrape(hook: () => Promise<void>): void {
    this.scrapeHooks.push(hook);
  }

  /** The exposition text, after the scrape hooks have run (a failing hook leaves its gauges as they were). */
  async scrape(): Promise<string> {
    await Promise.all(this.scrapeHooks.map((h) => h().catch(() => undefined)));
    this.observeStalls();
    const text = await this.registry.metrics();
    this.resetStalls();
    return text;
  }

  /** Marks a periodic job's run (the stall monitor charges a stall overlapping it to the job); the function returned ends it. */
  jobStarted(job: string): () => void {
    return this.stallMonitor ? this.stallMonitor.jobStarted(job) : () => undefined;
  }

  private observeStalls(): void {
    const monitor = this.stallMonitor;
    if (!monitor) return;
    monitor.flush();
    const { max, p99 } = monitor.delay();
    this.loopDelayMax.set(max);
    this.loopDelayP99.set(p99);
    for (const [cause, seconds] of this.longest) this.stallLongest.set({ cause }, seconds);
  }

  private resetStalls(): void {
    if (!this.stallMonitor) return;
    this.stallMonitor.resetDelay();
    this.longest = new Map();
    this.stallLongest.reset();
  }

  constructor(opts: { processMetrics?: boolean; stalls?: boolean } = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
    this.stallMonitor =
      (opts.stalls ?? opts.processMetrics)
        ? new StallMonitor({
            stall: (cause, seconds) => {
              this.stalls.inc({ cause });
              this.stallSeconds.inc({ cause }, seconds);
              if (seconds > (this.longest.get(cause) ?? 0)) this.longest.set(cause, seconds);
            },
          })
        : null;
    this.stallMonitor?.start();
  }

  /** Serves GET /metrics on host:port (port 0 picks a free one); resolves with the port. */
  async serve(host: string, port: number): Promise<number> {
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      this.scrape().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  /** The port the metrics server listens on, or null when it is not serving. */
  get port(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async stop(): Promise<void> {
    this.stallMonitor?.stop();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A counter following a running total kept elsewhere: each observation adds what the total grew by since the last. */
class TotalCounter {
  private readonly counter: Counter;
  private last = 0;

  constructor(registry: Registry, name: string, help: string) {
    this.counter = new Counter({ name, help, registers: [registry] });
  }

  observe(total: number): void {
    this.counter.inc(Math.max(0, total - this.last));
    this.last = total;
  }
}
