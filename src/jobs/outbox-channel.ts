// What the outbox needs from a channel (src/jobs/outbox.ts). A channel owns
// its rows (transport = name), the column its recipient is kept in, the rule
// for whether a row claimed later is still to be sent, and the sending. Chat
// (src/services/chat-delivery.ts) and email (src/services/mail-delivery.ts)
// are the two; a new one implements this and is added to the context's outbox.
import type { Db } from '../db/database.js';
import type { ChatTransportName, NotificationRow } from '../db/tables.js';
import type { SendOutcome } from '../providers/chat/types.js';

export interface OutboxChannel {
  /** The transport column of this channel's rows. */
  readonly name: ChatTransportName;
  /** Whether a claimed row is still to be sent (the recipient unchanged, the choice still made). */
  stillWanted(row: NotificationRow): Promise<boolean>;
  /** Sends one row to its recipient. */
  send(row: NotificationRow): Promise<SendOutcome>;
  /**
   * What a 'blocked' answer (the recipient refused the channel for good)
   * means: the reason recorded, and what follows, in the transaction that
   * records the failure. Without it such an answer fails that one row.
   */
  readonly blocked?: { reason: string; follow(trx: Db, row: NotificationRow): Promise<void> };
  /** Told after each send whether the service behind the channel works (a recipient refusing says nothing about it). */
  serviceAnswered?(works: boolean, at: number): void;
}
