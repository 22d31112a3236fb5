// What else must happen, in the same transaction, when a bet changes state:
// the notification outbox (messaging), the verifiable record, statistics.
// The bet lifecycle calls ctx.betEvents inside its transaction; each part of
// the service registers a listener when the app is built.
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import { afterCommit } from '../db/transaction.js';

export type BetEventKind = 'opened' | 'closed' | 'cancelled' | 'settled';

export interface BetEvent {
  kind: BetEventKind;
  /** The bet as it is after the change. */
  bet: BetRow;
  at: number;
}

export type BetEventListener = (trx: Db, event: BetEvent) => Promise<void>;

export class BetEvents {
  private readonly listeners: BetEventListener[] = [];
  private readonly committedListeners: Array<(event: BetEvent) => void> = [];

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
    if (this.committedListeners.length > 0) afterCommit(trx, () => this.committedListeners.forEach((l) => l(event)));
  }
}
