// Password hashes on threads of their own, at the lowest CPU priority.
//
// An argon2id hash is 15-20 ms of CPU. On libuv's thread pool it competed
// with the event loop at equal priority: on a machine with one core for the
// service, two hashes running took two thirds of it, and every request
// waiting behind the event loop paid for it (the leaderboard during logins,
// docs/performance.md). Here each hash runs synchronously on a worker thread
// whose nice value is raised (Linux sets it per thread), so the scheduler
// gives the core to the event loop first and the hash the rest; on a machine
// with a core to spare nothing changes. Logins then slow down rather than
// every other request, and the hash queue (passwords.ts) answers 503 to those
// that wait too long. The libuv pool keeps its threads for the disk (the
// WAL's sync), at normal priority, and each hash's 7 MiB is returned after it
// instead of staying in a pool thread's malloc arena.
//
// The hashes are argon2's PHC strings, the same as before: stored hashes
// verify unchanged.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PasswordHashing } from './passwords.js';

/** The nice value of a hashing thread: the lowest priority (Linux weighs it 15 against the event loop's 1024). */
export const HASH_THREAD_NICE = 19;

export interface HashParams {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

type Job = { op: 'hash'; password: string } | { op: 'verify'; hash: string; password: string };
type Reply = { id: number; ok: true; value: string | boolean } | { id: number; ok: false; error: string };

// CommonJS in the worker: the module is resolved here, where the package's exports are known.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Module);
const fs = require('node:fs');
const os = require('node:os');
let tid = null;
let niced = false;
try {
  // /proc/thread-self names this thread's own task; setpriority on its id changes this thread alone (Linux).
  tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  os.setPriority(tid, workerData.nice);
  niced = os.getPriority(tid) === workerData.nice;
} catch {}
parentPort.postMessage({ ready: true, tid, niced });
const options = { algorithm: argon2.Algorithm.Argon2id, ...workerData.params };
parentPort.on('message', ({ id, job }) => {
  try {
    const value = job.op === 'hash' ? argon2.hashSync(job.password, options) : argon2.verifySync(job.hash, job.password);
    parentPort.postMessage({ id, ok: true, value });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, error: String((e && e.message) || e) });
  }
});
`;

export interface ThreadPriority {
  tid: number | null;
  niced: boolean;
}

interface Thread {
  worker: Worker;
  busy: boolean;
  /** It crashed or exited: no answer will come from it. */
  lost: boolean;
  /** Its task id, and whether its priority was lowered (false where the system does not allow it). */
  started: Promise<ThreadPriority>;
}

/** The thread ran no more (it crashed or was stopped): not an answer about the password. */
export class HashThreadLostError extends Error {
  constructor(reason: string) {
    super(`password hashing thread ${reason}`);
    this.name = 'HashThreadLostError';
  }
}

/**
 * At most `threads` hashes at once, each on its own worker thread, started
 * when first needed. More calls than threads wait in order.
 */
export class HashThreads {
  private readonly threads: Thread[] = [];
  private readonly waiting: Array<{ resolve: (t: Thread) => void; reject: (e: Error) => void }> = [];
  private readonly pending = new Map<number, { resolve: (v: string | boolean) => void; reject: (e: Error) => void; thread: Thread }>();
  private nextId = 0;
  private closed = false;
  private readonly argon2Module = createRequire(import.meta.url).resolve('@node-rs/argon2');

  constructor(
    private readonly size: number,
    private readonly params: HashParams,
  ) {}

  hash(password: string): Promise<string> {
    return this.run({ op: 'hash', password }) as Promise<string>;
  }

  verify(hash: string, password: string): Promise<boolean> {
    return this.run({ op: 'verify', hash, password }) as Promise<boolean>;
  }

  /** Each started thread's task id and whether it runs at the lowered priority. */
  priorities(): Promise<ThreadPriority[]> {
    return Promise.all(this.threads.map((t) => t.started));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new HashThreadLostError('pool is closed'));
    const threads = this.threads.splice(0);
    // Held until each has exited: an unref'd worker's exit would not keep the caller's process waiting.
    await Promise.all(
      threads.map((t) => {
        t.worker.ref();
        return t.worker.terminate();
      }),
    );
  }

  private async run(job: Job): Promise<string | boolean> {
    if (this.closed) throw new HashThreadLostError('pool is closed');
    const thread = await this.take();
    const id = ++this.nextId;
    try {
      // Closed, or the thread died, while this call waited for it.
      if (this.closed || thread.lost) throw new HashThreadLostError(this.closed ? 'pool is closed' : 'exited');
      return await new Promise<string | boolean>((resolve, reject) => {
        this.pending.set(id, { resolve, reject, thread });
        thread.worker.ref();
        thread.worker.postMessage({ id, job });
      });
    } finally {
      this.give(thread);
    }
  }

  private take(): Promise<Thread> {
    const idle = this.threads.find((t) => !t.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.threads.length < this.size) {
      const thread = this.start();
      thread.busy = true;
      return Promise.resolve(thread);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private give(thread: Thread): void {
    thread.busy = false;
    // An idle thread must not keep the process alive (a closing pool holds its threads until they exit).
    if (!this.closed) thread.worker.unref();
    const next = this.waiting.shift();
    if (!next) return;
    // The thread just given back, or (when it was lost) a new one in its place.
    if (this.closed) next.reject(new HashThreadLostError('pool is closed'));
    else this.take().then(next.resolve, next.reject);
  }

  private start(): Thread {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // A test run's TypeScript loader is not needed there.
      execArgv: [],
      workerData: { argon2Module: this.argon2Module, nice: HASH_THREAD_NICE, params: this.params },
    });
    let readied: (p: ThreadPriority) => void = () => undefined;
    const thread: Thread = { worker, busy: false, lost: false, started: new Promise((resolve) => (readied = resolve)) };
    worker.on('message', (msg: Reply | ({ ready: true } & ThreadPriority)) => {
      if ('ready' in msg) return readied({ tid: msg.tid, niced: msg.niced });
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new Error(msg.error));
    });
    // A thread that dies fails its hash; the next call starts another.
    const lost = (reason: string) => {
      thread.lost = true;
      readied({ tid: null, niced: false });
      const i = this.threads.indexOf(thread);
      if (i >= 0) this.threads.splice(i, 1);
      for (const [id, p] of this.pending)
        if (p.thread === thread) {
          this.pending.delete(id);
          p.reject(new HashThreadLostError(reason));
        }
    };
    worker.on('error', (err) => lost(`failed: ${err.message}`));
    worker.on('exit', (code) => lost(`exited (${code})`));
    this.threads.push(thread);
    return thread;
  }
}

/** The PHC string's parameters (in any order), or null when it is not an argon2id hash of version 19. */
export function argon2idParams(hash: string): HashParams | null {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== '' || parts[1] !== 'argon2id' || parts[2] !== 'v=19') return null;
  const params = new Map(parts[3]!.split(',').map((kv) => kv.split('=') as [string, string]));
  const read = (key: string) => (/^\d+$/.test(params.get(key) ?? '') ? Number(params.get(key)) : null);
  const [m, t, p] = [read('m'), read('t'), read('p')];
  if (m === null || t === null || p === null || params.size !== 3) return null;
  return { memoryCost: m, timeCost: t, parallelism: p };
}

export function threadHashing(threads: number, params: HashParams): PasswordHashing & { threads: HashThreads } {
  const pool = new HashThreads(threads, params);
  return {
    threads: pool,
    hash: (password) => pool.hash(password),
    async verify(hash, password) {
      try {
        return await pool.verify(hash, password);
      } catch (err) {
        // A hash it cannot read is a wrong password; a lost thread is a failure, not an answer.
        if (err instanceof HashThreadLostError) throw err;
        return false;
      }
    },
    needsRehash(hash) {
      // A hash that is not a readable argon2 one cannot have verified: nothing to replace.
      if (!/^\$argon2(id|i|d)\$v=\d+\$[^$]+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(hash)) return false;
      const p = argon2idParams(hash);
      return p === null || p.memoryCost !== params.memoryCost || p.timeCost !== params.timeCost || p.parallelism !== params.parallelism;
    },
  };
}
