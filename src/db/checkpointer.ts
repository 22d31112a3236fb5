// WAL checkpoints off the event loop. The request connection runs with
// wal_autocheckpoint=0: SQLite's automatic checkpoint would copy pages into
// the database file and fsync it inside some request's COMMIT, on the event
// loop. Instead a worker thread with its own connection to the same file runs
// PRAGMA wal_checkpoint(PASSIVE) when the -wal file has grown past a size
// (checked after commits, at most once an interval). PASSIVE never waits for
// readers or writers, so the request connection is never made to wait for
// it; with synchronous=NORMAL on the worker's connection SQLite syncs the WAL
// before copying and the database file after a complete checkpoint, before
// the WAL can be written again from its start. The worker is started on the
// first checkpoint, so a database that never grows its WAL (most tests) never
// has one.
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointOptions {
  /** Ask for a checkpoint once the -wal file is at least this large (bytes). */
  walBytes: number;
  /** ... and at most this often (ms): a WAL reused after a checkpoint keeps its size. */
  intervalMs: number;
}

export const DEFAULT_CHECKPOINT: CheckpointOptions = { walBytes: 4 * 1024 * 1024, intervalMs: 1000 };

/** What the worker's checkpoints have done (tests and diagnostics). */
export interface CheckpointStats {
  /** Checkpoints run. */
  runs: number;
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
  private inFlight = false;
  private lastAsked = 0;
  private closed = false;
  readonly stats: CheckpointStats = { runs: 0, lastLog: 0, lastCheckpointed: 0, workerRunning: false, failure: null };

  constructor(
    private readonly file: string,
    /** The -wal file's current size. */
    private readonly walSize: () => number,
    /** Called once if the worker fails: the caller turns SQLite's own checkpoints back on. */
    private readonly onFailure: (reason: string) => void,
    private readonly opts: CheckpointOptions = DEFAULT_CHECKPOINT,
  ) {}

  /** After a durable commit: asks for a checkpoint when the WAL is big enough and none ran lately. */
  committed(now = Date.now()): void {
    if (this.closed || this.inFlight || this.stats.failure !== null) return;
    if (now - this.lastAsked < this.opts.intervalMs || this.walSize() < this.opts.walBytes) return;
    this.lastAsked = now;
    this.inFlight = true;
    (this.worker ??= this.start()).postMessage('checkpoint');
  }

  /** Stops the worker (its connection closed) and waits for its thread to end. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (!worker || !this.stats.workerRunning) return;
    const exited = once(worker, 'exit');
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
      this.inFlight = false;
      if (!reply.ok) return this.fail(reply.error);
      this.stats.runs += 1;
      this.stats.lastLog = reply.log;
      this.stats.lastCheckpointed = reply.checkpointed;
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
    this.inFlight = false;
    void this.worker?.terminate();
    this.worker = null;
    this.onFailure(reason);
  }
}
