// Password hashing with argon2id. Hashes run on threads of their own, never on
// the event loop (src/services/hash-threads.ts); a bounded, fair queue
// decides which requests get a thread:
// - at most `concurrency` hashes run at once, so a burst cannot starve other
//   work of threads and memory;
// - at most `maxWaiting` more wait, each at most `maxWaitMs`: beyond that the
//   answer is 503 with Retry-After at once, so a flood cannot build a line
//   that every later login must sit through;
// - one address, and one account, hold at most `perClient` of the places
//   (running or waiting): beyond that the answer is 429 at once, so a flood
//   from one address or against one account leaves room for everyone else;
// - `loginReserve` places are kept for logins, and a waiting login goes before
//   other waiting work: password changes, deletions, changes of address and
//   registrations (which cost hashes even with the right password) can fill
//   only the rest, so however many accounts send them, a login still gets a
//   place and the next free thread.
import { serviceUnavailable, tooManyRequests } from '../errors.js';

// argon2id at 7 MiB, 5 passes, 1 lane: one of the settings OWASP's password
// storage cheat sheet lists as equal in defence to its 19 MiB, 2 passes (the
// same memory passes, so the same time a hash), chosen for what stays
// resident while logins run (docs/performance.md, Memory). Hashes made with
// other settings still verify, and are made again at the next login (login
// in src/services/accounts.ts). The hashing itself: src/services/hash-threads.ts.
export const HASH_OPTIONS = { memoryCost: 7168, timeCost: 5, parallelism: 1 } as const;

/** The hashing itself, without queueing; tests inject a fake with controlled latency. */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a hash it cannot read. */
  verify(hash: string, password: string): Promise<boolean>;
  /** True when a stored hash was made with other settings than hash() uses now. */
  needsRehash(hash: string): boolean;
}

export interface HashQueueLimits {
  /** Hashes running at once. */
  concurrency: number;
  /** Hashes that may wait for a thread beyond those running. */
  maxWaiting: number;
  /** How long one may wait before it is refused (503). */
  maxWaitMs: number;
  /** Places (running or waiting) one address, or one account, may hold; Infinity for no share. */
  perClient: number;
  /** Places (running or waiting) only logins may take; less than concurrency + maxWaiting. */
  loginReserve: number;
}

/** Whom a hash is done for: the client's address, and the account when there is one. */
export interface HashClaimant {
  ip: string;
  account?: string;
  /** A login: it may take the places kept for logins, and waits ahead of other work. */
  login?: boolean;
}

/** One place in the queue: used for one hash or verification, then given back. */
export interface HashPlace {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spends the same work as a real verification, for an email with no account, so timing does not reveal which emails exist. */
  verifyDummy(password: string): Promise<false>;
  /** Gives back a place that will not be used (later calls do nothing). */
  release(): void;
}

interface Waiter {
  /** Given a thread (synchronously, by whoever passes it on). */
  start(): void;
  cancel(): void;
}

export class PasswordHasher {
  private running = 0;
  private readonly waitingLogins: Waiter[] = [];
  private readonly waitingOthers: Waiter[] = [];
  /** Places (running or waiting) held by work other than logins. */
  private others = 0;
  private readonly held = new Map<string, number>();
  private dummy: Promise<string> | null = null;

  constructor(
    private readonly limits: HashQueueLimits,
    /** The hashing behind the queue (threadHashing's argon2id unless a test injects another). */
    readonly hashing: PasswordHashing,
  ) {}

  /** Hashes running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingLogins.length + this.waitingOthers.length };
  }

  /**
   * Takes a place in the queue at once, or throws: 429 when the address or
   * the account already holds its share, 503 when the queue is full (for work
   * other than a login, when all but the logins' places are taken). Taking
   * the place first lets a caller refuse early, before any other check counts
   * the attempt. The place is given back by its one hash, or by release().
   */
  reserve(who: HashClaimant): HashPlace {
    const keys = [`ip:${who.ip}`, ...(who.account === undefined ? [] : [`account:${who.account}`])];
    if (keys.some((k) => (this.held.get(k) ?? 0) >= this.limits.perClient)) throw tooManyRequests(1);
    const login = who.login === true;
    const { concurrency, maxWaiting, loginReserve } = this.limits;
    if (!login && this.others >= concurrency + maxWaiting - loginReserve) throw this.busy();
    const line = login ? this.waitingLogins : this.waitingOthers;
    let granted = false;
    let released = false;
    let waiter: Waiter | null = null;
    /** Why the place was taken back before its turn (it waited too long). */
    let refusal: Error | null = null;
    const release = () => {
      if (released) return;
      released = true;
      if (!login) this.others--;
      for (const k of keys) {
        const n = (this.held.get(k) ?? 1) - 1;
        if (n <= 0) this.held.delete(k);
        else this.held.set(k, n);
      }
      if (granted) this.next();
      else if (waiter) {
        const i = line.indexOf(waiter);
        if (i >= 0) line.splice(i, 1);
        waiter.cancel();
      }
    };
    let turn: Promise<void>;
    if (this.running < concurrency) {
      this.running++;
      granted = true;
      turn = Promise.resolve();
    } else {
      if (this.load.waiting >= maxWaiting) throw this.busy();
      turn = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          refusal = this.busy();
          release();
          reject(refusal);
        }, this.limits.maxWaitMs);
        timer.unref();
        const w: Waiter = {
          start: () => {
            clearTimeout(timer);
            granted = true;
            resolve();
          },
          cancel: () => clearTimeout(timer),
        };
        waiter = w;
        line.push(w);
      });
      // Whoever uses the place sees the refusal; a place never used must not be an unhandled rejection.
      turn.catch(() => undefined);
    }
    for (const k of keys) this.held.set(k, (this.held.get(k) ?? 0) + 1);
    if (!login) this.others++;

    const use = async <T>(work: () => Promise<T>): Promise<T> => {
      if (released) throw refusal ?? new Error('a hash place is used once');
      try {
        await turn;
        return await work();
      } finally {
        release();
      }
    };
    return {
      hash: (password) => use(() => this.hashing.hash(password)),
      verify: (hash, password) => use(() => this.hashing.verify(hash, password)),
      verifyDummy: (password) =>
        use(async () => {
          this.dummy ??= this.hashing.hash('dummy password for timing equalisation');
          await this.hashing.verify(await this.dummy, password);
          return false as const;
        }),
      release,
    };
  }

  hash(password: string, who: HashClaimant): Promise<string> {
    return this.reserve(who).hash(password);
  }

  verify(hash: string, password: string, who: HashClaimant): Promise<boolean> {
    return this.reserve(who).verify(hash, password);
  }

  /** A running hash finished or gave its thread back: the next in line starts, a login first. */
  private next(): void {
    const waiter = this.waitingLogins.shift() ?? this.waitingOthers.shift();
    if (waiter) waiter.start();
    else this.running--;
  }

  /** The queue is full: come back after about the longest wait it allows. */
  private busy() {
    return serviceUnavailable('Too many password checks in progress; retry shortly', Math.max(1, Math.ceil(this.limits.maxWaitMs / 1000)));
  }
}
