// What keeps SQLite's reads from seeing a commit before it is on disk. The
// database runs at synchronous=NORMAL: a COMMIT is visible to the read
// connection as soon as it returns, and durable only once the WAL's sync on
// the thread pool has returned (src/db/wal-sync.ts). Whoever commits and
// syncs raises the fence when the commit becomes visible and lowers it once
// the sync is done; reads wait while it is up, as PostgreSQL shows no commit
// before its WAL record is flushed. Reads wait for nothing else: not for a
// write transaction under way, which they cannot see.

export class ReadFence {
  private held = 0;
  private waiters: Array<() => void> = [];

  /** A commit is visible and not yet synced. */
  raise(): void {
    this.held += 1;
  }

  /** Its sync has returned (or failed: the service then refuses writes, src/db/group-commit.ts). */
  lower(): void {
    if (this.held === 0) throw new Error('ReadFence.lower() without raise()');
    this.held -= 1;
    if (this.held > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  get up(): boolean {
    return this.held > 0;
  }

  /** Reads waiting for the fence to come down. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves once no visible commit awaits its sync; at once when none does. */
  async passed(): Promise<void> {
    // A commit made after the wake-up and before this read ran raises it again.
    while (this.held > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /**
   * Runs `read` once no visible commit awaits its sync, in the same turn as
   * the last look at the fence. Awaiting passed() and then reading is not
   * enough: between passed() returning and its caller going on, other
   * microtasks run, and one may commit.
   */
  async afterSync<T>(read: () => T): Promise<T> {
    while (this.held > 0) await this.passed();
    return read();
  }
}
