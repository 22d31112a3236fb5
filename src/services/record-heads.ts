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

/** Chain heads by user id; the oldest set is dropped past the bound. */
export class RecordHeads extends BoundedMap<number, RecordHead> {
  constructor(max = RECORD_HEADS_REMEMBERED) {
    super(max);
  }

  forget(userId: number): void {
    this.delete(userId);
  }
}
