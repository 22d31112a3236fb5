// The fsync that makes a SQLite commit durable, made on libuv's thread pool
// instead of inside COMMIT on the event loop. The database runs WAL with
// synchronous=NORMAL, so COMMIT only writes the transaction's frames to the
// -wal file; syncing that file afterwards gives what synchronous=FULL gave
// (the frames on disk before anyone is told), while the event loop goes on
// serving. fsync flushes the file's dirty pages whichever descriptor wrote
// them, so SQLite's writes are covered by our own descriptor.
//
// The descriptor is opened once, at the first sync. It stays valid: while the
// connection is open SQLite never unlinks the -wal file; after a checkpoint
// it starts writing it again from the top (same file), and journal_size_limit
// shrinks it with ftruncate (same file). Only closing the last connection
// removes it, and close() runs before that.
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export class WalSync {
  private handle: Promise<FileHandle> | null = null;
  private fd: number | null = null;
  /** The first failed sync's error, given to every sync after it (see src/db/group-commit.ts on why). */
  private failed: unknown = null;

  constructor(readonly walPath: string) {}

  /**
   * Flushes the -wal file to disk. fdatasync, as SQLite's own WAL sync: it
   * also writes the file's size when appending grew it, which is all the
   * metadata reading the frames back needs.
   */
  async sync(): Promise<void> {
    if (this.failed !== null) throw this.failed;
    try {
      await this.syncOnce();
    } catch (err) {
      this.failed = err;
      throw err;
    }
  }

  private async syncOnce(): Promise<void> {
    this.handle ??= fs.promises.open(this.walPath, 'r').then((h) => {
      this.fd = h.fd;
      return h;
    });
    let h: FileHandle;
    try {
      h = await this.handle;
    } catch (err) {
      this.handle = null;
      throw err;
    }
    await h.datasync();
  }

  /** The -wal file's size in bytes (an fstat: the inode in memory, no disk wait); 0 before the first sync. */
  size(): number {
    return this.fd === null ? 0 : fs.fstatSync(this.fd).size;
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    this.fd = null;
    if (h) await (await h.catch(() => null))?.close();
  }
}
