// Group commit for SQLite. Every durable commit costs an fsync, which caps
// write transactions at a few thousand a second. Write transactions that
// arrive together therefore share one BEGIN IMMEDIATE … COMMIT and one fsync:
// each runs in its own SAVEPOINT, so one failing rolls back only its own
// writes, and every caller is answered only after the shared COMMIT and then
// the sync of the WAL (src/db/wal-sync.ts, on libuv's thread pool: the event
// loop does not wait for the disk) have succeeded, so an acknowledged write is
// a durable one. The reads' snapshot is held from the COMMIT until the sync
// has returned, so no read sees a commit before it is on disk; reads run on a
// connection of their own and wait neither for the batch nor for its sync
// (src/db/sqlite-driver.ts, src/db/synced-snapshot.ts).
//
// A failed sync leaves the batch committed in the WAL but perhaps not on
// disk: its callers get the error, and so does every write after it, for the
// rest of the process's life. Linux may drop the unwritten pages after
// reporting the error once, so a later sync that succeeds proves nothing, and
// SQLite's recovery stops at the first damaged frame, which would lose every
// later commit too. Restarting reopens the database from what is on disk.
//
// better-sqlite3 runs each statement synchronously, so a batch of 64 writes,
// and the answers to them, would hold the event loop for one long turn
// (80-110 ms under 64 writers in the benchmark). The batch gives the loop
// back between members once it has held it for SLICE_MS, and answers its
// members a few at a time: reads and requests that need no connection are
// answered meanwhile, and later writes join the batch.
import { CompiledQuery } from 'kysely';
import { performance } from 'node:perf_hooks';
import type { SyncedSnapshot } from './synced-snapshot.js';
import type { Db } from './tables.js';

interface Pending {
  fn: (trx: Db) => Promise<unknown>;
  /** Runs in a batch of its own, without a savepoint (see run()). */
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

// The batch's own statements, compiled once.
const BEGIN = CompiledQuery.raw('begin immediate');
const SAVEPOINT = CompiledQuery.raw('savepoint member');
const RELEASE = CompiledQuery.raw('release member');
/** A member's RELEASE: always inside the batch's transaction, so it never commits (src/db/sqlite-driver.ts). */
export const MEMBER_RELEASE = RELEASE;
const ROLLBACK_MEMBER = CompiledQuery.raw('rollback to member');
/** The batch's COMMIT: the committer syncs after it itself (src/db/sqlite-driver.ts leaves it alone). */
export const GROUP_COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How long a batch runs its members before it gives the event loop a turn. */
export const SLICE_MS = 8;
/** Members answered in one turn: each answer runs the rest of its request (serialization, the reply). */
const ANSWERS_PER_TURN = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The steps of a batch, in order, for tests of their order. */
export type CommitEvent =
  | { type: 'commit'; batch: number; members: number }
  | { type: 'sync-start' | 'sync-end' | 'sync-failed'; batch: number }
  | { type: 'answered'; batch: number; member: number };

export interface GroupCommitOptions {
  maxBatch?: number;
  /** Makes a commit durable: the WAL's fsync. Absent where COMMIT itself is as durable as wanted (synchronous=OFF tests, :memory:). */
  sync?: () => Promise<void>;
  /** Awaited before each batch (the checkpointer's catch-up: writes wait, the event loop does not). */
  beforeBatch?: () => Promise<void>;
  /** Told each step of each batch. */
  onEvent?: (event: CommitEvent) => void;
  /** Held from each COMMIT until its sync has returned (src/db/synced-snapshot.ts). */
  snapshot?: SyncedSnapshot;
}

/** The error every write gets once a sync has failed. */
export class WalSyncFailedError extends Error {
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`the database's write-ahead log could not be synced to disk (${reason}): writes are refused until the service restarts`, { cause });
    this.name = 'WalSyncFailedError';
  }
}

export class GroupCommitter {
  private readonly queue: Pending[] = [];
  private running = false;
  /** Transactions committed and batches (commits) used: the ratio is the saving. */
  readonly stats = { transactions: 0, batches: 0 };
  private readonly maxBatch: number;
  private readonly sync: (() => Promise<void>) | null;
  private readonly onEvent: ((event: CommitEvent) => void) | null;
  private readonly beforeBatch: (() => Promise<void>) | null;
  private readonly snapshot: SyncedSnapshot | null;
  /** Set for good by a failed sync (see the top of this file). */
  private failed: WalSyncFailedError | null = null;
  private batches = 0;

  constructor(
    private readonly db: Db,
    opts: GroupCommitOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 64;
    this.sync = opts.sync ?? null;
    this.onEvent = opts.onEvent ?? null;
    this.beforeBatch = opts.beforeBatch ?? null;
    this.snapshot = opts.snapshot ?? null;
  }

  /**
   * Runs fn as a member of the next batch; resolves after the shared commit and its sync.
   * `alone`: a transaction that writes a great deal (a recount of every aggregate) runs in a
   * batch of its own and without a savepoint, whose undo copy of every page it changes SQLite
   * would keep in memory (temp_store=MEMORY) until the batch ends: a gigabyte for a recount of
   * a million bets. A failure rolls back the batch, which is that transaction alone.
   */
  run<T>(fn: (trx: Db) => Promise<T>, opts: { alone?: boolean } = {}): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, alone: opts.alone === true, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        // Started on the next turn of the event loop, not now: requests that
        // are already readable get to queue their transactions and join.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        if (this.beforeBatch) await this.beforeBatch();
        await this.batch();
        // Requests held back by the batch (the connection was taken) queue up meanwhile.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
      // A caller may have queued between the loop's last check and the flag reset.
      if (this.queue.length > 0) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  private async batch(): Promise<void> {
    if (this.failed) {
      for (const item of this.queue.splice(0)) item.reject(this.failed);
      return;
    }
    const members: Array<{ item: Pending; outcome: Outcome }> = [];
    const batch = ++this.batches;
    const emit = (event: CommitEvent) => this.onEvent?.(event);
    try {
      await this.db.connection().execute(async (conn) => {
        const exec = async (q: CompiledQuery) => void (await conn.executeQuery(q));
        await exec(BEGIN);
        try {
          let sliceStart = performance.now();
          // Later arrivals join while the batch is open, up to maxBatch.
          while (this.queue.length > 0 && members.length < this.maxBatch) {
            if (members.length > 0 && performance.now() - sliceStart >= SLICE_MS) {
              await nextTurn();
              sliceStart = performance.now();
            }
            // One that runs alone waits for the next batch, and closes its own.
            if (this.queue[0]!.alone) {
              if (members.length > 0) break;
              const item = this.queue.shift()!;
              const entry: { item: Pending; outcome: Outcome } = { item, outcome: { ok: false, error: undefined } };
              members.push(entry);
              try {
                entry.outcome = { ok: true, value: await item.fn(conn) };
              } catch (error) {
                entry.outcome = { ok: false, error };
                throw error;
              }
              break;
            }
            const item = this.queue.shift()!;
            const entry: { item: Pending; outcome: Outcome } = { item, outcome: { ok: false, error: undefined } };
            members.push(entry);
            await exec(SAVEPOINT);
            try {
              entry.outcome = { ok: true, value: await item.fn(conn) };
              await exec(RELEASE);
            } catch (error) {
              entry.outcome = { ok: false, error };
              // Undo this member's writes only; if even that fails, the batch is lost.
              await exec(ROLLBACK_MEMBER);
              await exec(RELEASE);
            }
          }
          // Held before the COMMIT, whose statement runs within this turn: no read comes between.
          if (this.sync) this.snapshot?.hold();
          try {
            await exec(GROUP_COMMIT);
          } catch (err) {
            if (this.sync) this.snapshot?.release();
            throw err;
          }
        } catch (err) {
          await exec(ROLLBACK).catch(() => undefined);
          throw err;
        }
        emit({ type: 'commit', batch, members: members.length });
        if (this.sync) {
          emit({ type: 'sync-start', batch });
          try {
            await this.sync();
          } catch (err) {
            emit({ type: 'sync-failed', batch });
            this.failed = new WalSyncFailedError(err);
            throw this.failed;
          } finally {
            this.snapshot?.release();
          }
          emit({ type: 'sync-end', batch });
        }
      });
    } catch (err) {
      // Not even begun (the connection is gone): those waiting get the error now, or drain() would retry them forever.
      if (members.length === 0) for (const item of this.queue.splice(0)) item.reject(err);
      for (const m of members) m.item.reject(m.outcome.ok ? err : m.outcome.error);
      return;
    }
    this.stats.batches += 1;
    this.stats.transactions += members.length;
    for (const [i, m] of members.entries()) {
      if (i > 0 && i % ANSWERS_PER_TURN === 0) await nextTurn();
      emit({ type: 'answered', batch, member: i });
      if (m.outcome.ok) m.item.resolve(m.outcome.value);
      else m.item.reject(m.outcome.error);
    }
  }
}
