// What follows a change, as typed events. A service emits an event inside the
// transaction that made the change; the handlers, registered in one place
// (src/services/wiring.ts), run either inside that transaction, in the order
// they were registered (a failure rolls the change back), or once it has
// committed (never when it rolls back): dropping cached answers, which other
// requests must not miss before the data changes, nor see before it does.
import type { DatabaseHandle, Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import type { ChatAddress } from '../repositories/chat-links.js';
import type { UpdateKey } from '../repositories/chat-updates.js';
import type { LastEntry } from '../repositories/record.js';

export type BetEventKind = 'opened' | 'closed' | 'cancelled' | 'settled';

export interface BetEvent {
  kind: BetEventKind;
  /** The bet as it is after the change. */
  bet: BetRow;
  at: number;
  /** Set when the caller already holds the owner's row lock in this transaction (an opening): handlers need not take it again. */
  ownerLocked?: boolean;
  /** The owner's chain head, read by the caller in its lock statement (PostgreSQL); it may be out of date (src/repositories/record.ts lockOwnerReadingHead). */
  ownerHead?: { head: LastEntry | undefined };
  /** The owner's username when the caller has read it already. */
  ownerName?: string;
  /** A bet opened by a Tail or Fade button in a chat: the update pressed, answered in the opening's transaction. */
  button?: { chat: ChatAddress; update: UpdateKey };
  /** An opening with a thesis: its salted hash, committed in the opening entry (docs/theses.md). */
  thesisHash?: string;
}

/** Every event, by name, with what its handlers are told. */
export interface AppEvents {
  /** A bet opened, closed, cancelled or settled. */
  betChanged: BetEvent;
  /** An OPEN bet's committed price was recorded (docs/rankings.md); `at` is when, the instant it commits to is the end of its window. */
  betCommitted: { bet: BetRow; at: number };
  /** An account was deleted: parts of the service holding its personal data remove it. */
  accountDeleted: { userId: number };
  /** A league's members, rules or window changed, it was deleted, or its board was settled. */
  leagueChanged: { leagueId: number };
}

export type EventName = keyof AppEvents;
export type InTransactionHandler<K extends EventName> = (trx: Db, event: AppEvents[K]) => Promise<void>;
export type AfterCommitHandler<K extends EventName> = (event: AppEvents[K]) => void;

type HandlerLists<H extends 'in' | 'after'> = {
  [K in EventName]: Array<H extends 'in' ? InTransactionHandler<K> : AfterCommitHandler<K>>;
};

export class Events {
  private readonly inside: HandlerLists<'in'> = { betChanged: [], betCommitted: [], accountDeleted: [], leagueChanged: [] };
  private readonly after: HandlerLists<'after'> = { betChanged: [], betCommitted: [], accountDeleted: [], leagueChanged: [] };

  constructor(private readonly database: Pick<DatabaseHandle, 'onCommit'>) {}

  /** Runs handler inside the transaction of every change named `name`, after the handlers registered before it. */
  inTransaction<K extends EventName>(name: K, handler: InTransactionHandler<K>): void {
    this.inside[name].push(handler);
  }

  /** Runs handler once the transaction of every change named `name` has committed. */
  afterCommit<K extends EventName>(name: K, handler: AfterCommitHandler<K>): void {
    this.after[name].push(handler);
  }

  /** Called by the service that made the change, inside its transaction. */
  async emit<K extends EventName>(trx: Db, name: K, event: AppEvents[K]): Promise<void> {
    for (const handler of this.inside[name]) await handler(trx, event);
    const after = this.after[name];
    if (after.length > 0)
      this.database.onCommit(() => {
        for (const handler of after) handler(event);
      });
  }
}
