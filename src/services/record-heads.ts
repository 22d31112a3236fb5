// Each user's record chain head (last seq and hash) as the write connection
// sees it, so an append need not read it back. SQLite only: there this
// process makes every append, one at a time on its one connection. A head
// is set inside the appending transaction, right after its insert, and
// dropped as soon as that transaction's writes are undone (onRollback runs
// before any other transaction touches the connection), so a later append
// never builds on an entry that is not there.
import { BoundedMap } from '../lib/bounded-map.js';

export const RECORD_HEADS_REMEMBERED = 10_000;

export interface RecordHead {
  seq: number;
  hash: string;
}

export class RecordHeads {
  private readonly heads: BoundedMap<number, RecordHead>;

  constructor(max = RECORD_HEADS_REMEMBERED) {
    this.heads = new BoundedMap(max);
  }

  get(userId: number): RecordHead | undefined {
    return this.heads.get(userId);
  }

  set(userId: number, head: RecordHead): void {
    this.heads.set(userId, head);
  }

  forget(userId: number): void {
    this.heads.delete(userId);
  }

  get size(): number {
    return this.heads.size;
  }
}
