// The fan-out: one trader with 0, then the preset's middle and large counts
// of followers (each with a linked chat) opens a bet, a few times in a row;
// the opening's time at each, and how long the outbox takes to deliver what
// the opening queued. And the outbox's queue itself, read from the database,
// so a write scenario's notices are delivered before the next scenario runs.
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { closeRequest, openRequest, sendOnce } from './load.js';
import { median } from './stats.js';

export interface OutboxQueue {
  /** Notices waiting for delivery. */
  pending(): Promise<number>;
  /** Marks every pending notice dropped (what the drain window left), so it loads no later scenario; how many. */
  dropPending(): Promise<number>;
  close(): Promise<void>;
}

const DROP = "update notifications set status = 'dropped', last_error = 'benchmark: left after the drain window' where status = 'pending'";

/** The run's database, read directly (SQLite in WAL mode beside the service's writes). */
export function outboxQueue(databaseUrl: string): OutboxQueue {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length), { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    const count = db.prepare("select count(*) as n from notifications where status = 'pending'");
    const drop = db.prepare(DROP);
    return {
      pending: async () => Number((count.get() as { n: number }).n),
      dropPending: async () => drop.run().changes,
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  return {
    pending: async () => Number((await pool.query("select count(*) as n from notifications where status = 'pending'")).rows[0].n),
    dropPending: async () => (await pool.query(DROP)).rowCount ?? 0,
    close: () => pool.end(),
  };
}

export interface Drained {
  /** Seconds until nothing was pending; null when notices were still pending at the deadline. */
  seconds: number | null;
  /** Notices pending when the wait began, and at its end. */
  pendingAtStart: number;
  pendingLeft: number;
  /** How long the wait lasted (the deadline when notices were left), for the delivery rate. */
  waitedS?: number;
}

/**
 * Waits until the outbox has nothing pending, at most `maxS` seconds; what is
 * still pending then is dropped, so no later scenario pays for delivering it
 * (the delivery rate over the wait is what the report gives).
 */
export async function drainOutbox(queue: OutboxQueue, maxS: number): Promise<Drained> {
  const started = performance.now();
  const pendingAtStart = await queue.pending();
  let left = pendingAtStart;
  while (left > 0) {
    const waitedS = (performance.now() - started) / 1000;
    if (waitedS > maxS) {
      await queue.dropPending();
      return { seconds: null, pendingAtStart, pendingLeft: left, waitedS };
    }
    await sleep(100);
    left = await queue.pending();
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, pendingAtStart, pendingLeft: 0, waitedS: seconds };
}

export interface FanOutStep {
  followers: number;
  /** Every open's time, in order (ms, from the request's start to its answer, one at a time). */
  openMs: number[];
  medianOpenMs: number;
  /** The notices the last open and its close queued, and how long the outbox took to deliver them. */
  delivered: Drained | null;
  /** Why the step failed, when a request was refused. */
  failed?: string;
}

/**
 * `opens` opens in a row for each trader (each closed again, so capacity
 * never runs out), one request at a time with the service otherwise idle;
 * the outbox is drained between opens, so one opening's deliveries do not
 * slow the next.
 */
export async function measureFanOut(
  url: string,
  traders: Array<{ followers: number; cookie: string }>,
  opens: number,
  queue: OutboxQueue,
  drainMaxS: number,
): Promise<FanOutStep[]> {
  const steps: FanOutStep[] = [];
  for (const trader of traders) {
    const openMs: number[] = [];
    let delivered: Drained | null = null;
    let failed: string | undefined;
    for (let i = 0; i < opens && !failed; i++) {
      const open = await sendOnce(url, openRequest('AAPL'), trader.cookie);
      const betId = open.status === 200 ? (JSON.parse(open.body) as { bet_id?: number }).bet_id : undefined;
      if (betId === undefined) {
        failed = `POST /bet/open answered ${open.status} ${open.body.slice(0, 200)}`;
        break;
      }
      openMs.push(open.ms);
      const close = await sendOnce(url, closeRequest(betId), trader.cookie);
      if (close.status !== 200) failed = `POST /bet/close answered ${close.status} ${close.body.slice(0, 200)}`;
      delivered = await drainOutbox(queue, drainMaxS);
    }
    steps.push({
      followers: trader.followers,
      openMs,
      medianOpenMs: openMs.length ? median(openMs) : Number.NaN,
      delivered,
      ...(failed ? { failed } : {}),
    });
  }
  return steps;
}
