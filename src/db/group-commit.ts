// Group commit for SQLite. With synchronous=FULL every commit costs an fsync,
// which caps durable write transactions at a few thousand a second. Write
// transactions that arrive together therefore share one BEGIN IMMEDIATE …
// COMMIT (one fsync): each runs in its own SAVEPOINT, so one failing rolls
// back only its own writes, and every caller is answered only after the
// shared COMMIT has succeeded, so an acknowledged write is a durable one.
import { CompiledQuery } from 'kysely';
import type { Db } from './tables.js';

interface Pending {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

// The batch's own statements, compiled once.
const BEGIN = CompiledQuery.raw('begin immediate');
const SAVEPOINT = CompiledQuery.raw('savepoint member');
const RELEASE = CompiledQuery.raw('release member');
const ROLLBACK_MEMBER = CompiledQuery.raw('rollback to member');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommitter {
  private readonly queue: Pending[] = [];
  private running = false;
  /** Transactions committed and batches (commits) used: the ratio is the saving. */
  readonly stats = { transactions: 0, batches: 0 };

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 64,
  ) {}

  /** Runs fn as a member of the next batch; resolves after the shared commit. */
  run<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
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
    const members: Array<{ item: Pending; outcome: Outcome }> = [];
    try {
      await this.db.connection().execute(async (conn) => {
        const exec = async (q: CompiledQuery) => void (await conn.executeQuery(q));
        await exec(BEGIN);
        try {
          // Later arrivals join while the batch is open, up to maxBatch.
          while (this.queue.length > 0 && members.length < this.maxBatch) {
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
          await exec(COMMIT);
        } catch (err) {
          await exec(ROLLBACK).catch(() => undefined);
          throw err;
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
    for (const m of members) {
      if (m.outcome.ok) m.item.resolve(m.outcome.value);
      else m.item.reject(m.outcome.error);
    }
  }
}
