// What keeps SQLite's reads from seeing a commit before it is on disk,
// without making them wait for the disk. The database runs at
// synchronous=NORMAL: a COMMIT is visible to the read connection as soon as
// it returns, and durable only once the WAL's sync on the thread pool has
// returned (src/db/wal-sync.ts). So whoever commits holds the snapshot from
// just before the COMMIT until its sync is done: the read connection then
// stays in a read transaction begun before the commit, and every read meanwhile
// is answered at once from the state before it, which is on disk, as
// PostgreSQL shows no commit before its WAL record is flushed. Once released,
// reads see the synced commit; the committer answers its callers only after
// that, so a caller reads its own acknowledged writes.
//
// Reads used to wait for the sync instead (a fence). Under a steady write
// load a sync is pending much of the time, and the reads that waited for one
// were all resumed together: a whole queue of requests then held their pages
// at once, long enough to outlive young collections (docs/performance.md,
// Stalls).
import type SQLite from 'better-sqlite3';

export class SyncedSnapshot {
  private held = 0;
  private readonly begin: SQLite.Statement | null;
  private readonly pin: SQLite.Statement | null;
  private readonly end: SQLite.Statement | null;

  /** `reader`: the read connection; null where reads take the writer (no WAL, :memory:), which a sync holds anyway. */
  constructor(private readonly reader: SQLite.Database | null) {
    this.begin = reader?.prepare('begin') ?? null;
    // A deferred transaction takes its snapshot at its first read: this one, of the schema's first page.
    this.pin = reader?.prepare('select 1 from sqlite_schema limit 1') ?? null;
    this.end = reader?.prepare('commit') ?? null;
  }

  /**
   * Call in the same turn as a COMMIT, just before it: from here until the
   * matching release(), reads see the database as it was before that commit.
   * Holds nest: the snapshot is kept until the last is released.
   */
  hold(): void {
    if (this.held === 0 && this.reader) {
      // Left open only by a release whose COMMIT failed: that snapshot is older than this one must be.
      if (this.reader.inTransaction) this.end!.run();
      this.begin!.run();
      try {
        this.pin!.get();
      } catch (err) {
        this.end!.run();
        throw err;
      }
    }
    this.held += 1;
  }

  /** The commit's sync has returned (or failed: the service then refuses writes, src/db/group-commit.ts). */
  release(): void {
    if (this.held === 0) throw new Error('SyncedSnapshot.release() without hold()');
    this.held -= 1;
    if (this.held === 0 && this.reader?.inTransaction) this.end!.run();
  }

  /** Whether reads are held at the state before a commit that awaits its sync. */
  get holding(): boolean {
    return this.held > 0;
  }
}
