// WAL checkpoints off the event loop. The request connection runs with
// wal_autocheckpoint=0: SQLite's automatic checkpoint would copy pages into
// the database file and fsync it inside some request's COMMIT, on the event
// loop. Instead a worker thread with its own connection to the same file runs
// PRAGMA wal_checkpoint(PASSIVE) when the -wal file has grown past a size
// (checked after commits, at most once an interval). PASSIVE never waits for
// readers or writers, so the request connection is never made to wait for
// it; should the WAL outrun it, writes pause for one (catchUp). With synchronous=NORMAL on the worker's connection SQLite syncs the WAL
// before copying and the database file after a complete checkpoint, before
// the WAL can be written again from its start. journal_size_limit (half of
// walBytes, set by openDatabase) cuts the -wal file back at the first commit
// after that, so its size is the bytes of frames written since: the measure
// used here. The worker is started on the
// first checkpoint, so a database that never grows its WAL (most tests) never
// has one.
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

export interface CheckpointOptions {
  /** Ask for a checkpoint once the -wal file holds this many bytes of frames. */
  walBytes: number;
  /** ... at most this often (ms) while checkpoints cannot finish for the writes going on. */
  intervalMs: number;
}

// 16 MiB, so that writes wait for a checkpoint (at 64 MiB) about once for every
// 64 MiB written: under 64 traders' opens and closes a 16 MiB limit held them
// 16-19 % of the time, 64 MiB 5-6 %, and a checkpoint copies a page changed by
// many commits once instead of at each (bench/sqlite-costs.ts, the traders'
// table; docs/performance.md). The WAL file on disk grows to about 64 MiB.
export const DEFAULT_CHECKPOINT: CheckpointOptions = { walBytes: 16 * 1024 * 1024, intervalMs: 250 };

/**
 * The WAL size past which writes wait for a checkpoint: PASSIVE checkpoints
 * running beside a steady stream of commits never catch up with the last
 * frame, and the WAL is only written from its top again once one has.
 */
export const behindBytes = (opts: CheckpointOptions) => 4 * opts.walBytes;

/** What the worker's checkpoints have done (tests and diagnostics). */
export interface CheckpointStats {
  /** Checkpoints run. */
  runs: number;
  /** Times writes waited for a checkpoint (the WAL past behindBytes), and for how long in all (ms). */
  waits: number;
  waitedMs: number;
  /** Frames in the WAL and frames of it copied into the database, after the last run. */
  lastLog: number;
  lastCheckpointed: number;
  /** True while the worker thread is alive. */
  workerRunning: boolean;
  /** Why the worker stopped, when it failed (checkpoints are then SQLite's own, on the event loop). */
  failure: string | null;
}

type Reply = { ok: true; busy: number; log: number; checkpointed: number } | { ok: false; error: string };

// Plain CommonJS run with eval: it needs no TypeScript loader under tests and
// no entry point of its own in the bundle (scripts/build-server.mjs).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
  }
});
`;

export class Checkpointer {
  private worker: Worker | null = null;
  /** The checkpoint under way, resolved when the worker answers (or fails). */
  private inFlight: Promise<void> | null = null;
  private answered: (() => void) | null = null;
  private lastAsked = 0;
  private closed = false;
  readonly stats: CheckpointStats = { runs: 0, waits: 0, waitedMs: 0, lastLog: 0, lastCheckpointed: 0, workerRunning: false, failure: null };

  constructor(
    private readonly file: string,
    /** The -wal file's current size. */
    private readonly walSize: () => number,
    /** Called once if the worker fails: the caller turns SQLite's own checkpoints back on. */
    private readonly onFailure: (reason: string) => void,
    private readonly opts: CheckpointOptions = DEFAULT_CHECKPOINT,
  ) {}

  private get stopped(): boolean {
    return this.closed || this.stats.failure !== null;
  }

  /** After a durable commit: asks for a checkpoint when the WAL is big enough and none ran lately. */
  committed(now = Date.now()): void {
    if (this.stopped || this.inFlight || now - this.lastAsked < this.opts.intervalMs || this.walSize() < this.opts.walBytes) return;
    void this.checkpoint(now);
  }

  /**
   * Before a batch: when the WAL has outrun the checkpoints (behindBytes),
   * waits for one that runs with no write beside it, so it reaches the last
   * frame and the next commit writes the WAL from its top again. The event
   * loop goes on; only writes wait.
   */
  async catchUp(): Promise<void> {
    if (this.stopped || this.walSize() < behindBytes(this.opts)) return;
    this.stats.waits += 1;
    const start = performance.now();
    try {
      if (this.inFlight) await this.inFlight;
      if (!this.stopped) await this.checkpoint(Date.now());
    } finally {
      this.stats.waitedMs += performance.now() - start;
    }
  }

  private checkpoint(now: number): Promise<void> {
    this.lastAsked = now;
    this.inFlight = new Promise<void>((resolve) => {
      this.answered = resolve;
    });
    this.worker ??= this.start();
    const worker = this.worker;
    // Held while someone may be waiting for the answer; otherwise unref'd (start()).
    worker.ref();
    worker.postMessage('checkpoint');
    return this.inFlight;
  }

  private settle(): void {
    this.worker?.unref();
    const answered = this.answered;
    this.inFlight = null;
    this.answered = null;
    answered?.();
  }

  /** Stops the worker (its connection closed) and waits for its thread to end. */
  async close(): Promise<void> {
    this.closed = true;
    this.settle();
    const worker = this.worker;
    this.worker = null;
    if (!worker || !this.stats.workerRunning) return;
    const exited = once(worker, 'exit');
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
    // execArgv empty: a test run's TypeScript loader is not needed there.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { file: this.file, sqliteModule } });
    // A forgotten close() must not keep the process alive.
    worker.unref();
    this.stats.workerRunning = true;
    worker.on('message', (reply: Reply) => {
      if (!reply.ok) return this.fail(reply.error);
      this.stats.runs += 1;
      this.stats.lastLog = reply.log;
      this.stats.lastCheckpointed = reply.checkpointed;
      this.settle();
    });
    worker.on('error', (err) => this.fail(err.message));
    worker.on('exit', () => {
      this.stats.workerRunning = false;
      if (this.worker === worker) {
        this.worker = null;
        if (!this.closed) this.fail('checkpoint worker exited');
      }
    });
    return worker;
  }

  private fail(reason: string): void {
    if (this.stats.failure !== null || this.closed) return;
    this.stats.failure = reason;
    this.settle();
    void this.worker?.terminate();
    this.worker = null;
    this.onFailure(reason);
  }
}
