// What else must happen, in the same transaction, when a bet changes state:
// the notification outbox (messaging), the verifiable record, statistics.
// The bet lifecycle calls ctx.betEvents inside its transaction; which parts
// listen is said in one place, src/services/wiring.ts.
import type { Db, DatabaseHandle } from '../db/database.js';
import type { BetRow } from '../db/tables.js';

export type BetEventKind = 'opened' | 'closed' | 'cancelled' | 'settled';

export interface BetEvent {
  kind: BetEventKind;
  /** The bet as it is after the change. */
  bet: BetRow;
  at: number;
  /** Set when the caller already holds the owner's row lock in this transaction (an opening): listeners need not take it again. */
  ownerLocked?: boolean;
  /** The owner's username when the caller has read it already. */
  ownerName?: string;
}

export type BetEventListener = (trx: Db, event: BetEvent) => Promise<void>;

export class BetEvents {
  private readonly listeners: BetEventListener[] = [];
  private readonly committedListeners: Array<(event: BetEvent) => void> = [];

  constructor(private readonly database: DatabaseHandle) {}

  on(listener: BetEventListener): void {
    this.listeners.push(listener);
  }

  /** Told once the change is committed (cached answers are dropped then, not before). */
  onCommitted(listener: (event: BetEvent) => void): void {
    this.committedListeners.push(listener);
  }

  /** Runs every listener in the caller's transaction; a failure rolls the bet change back. */
  async emit(trx: Db, event: BetEvent): Promise<void> {
    for (const l of this.listeners) await l(trx, event);
    if (this.committedListeners.length > 0)
      this.database.onCommit(() => {
        for (const l of this.committedListeners) l(event);
      });
  }
}
