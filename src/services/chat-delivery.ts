// The chat as a channel of the outbox: rows of the configured transport
// (Telegram, or the embedded log), the chat in chat_id.
import type { Db } from '../db/database.js';
import type { NotificationRow } from '../db/tables.js';
import type { OutboxChannel } from '../jobs/outbox-channel.js';
import type { ChatTransport, SendOutcome } from '../providers/chat/types.js';
import { deleteLinkOfChat, findLinkOfUser } from '../repositories/chat-links.js';
import { dropPendingOfChat } from '../repositories/notifications.js';
import type { ProviderStatus } from './provider-status.js';

// A user's own notices (bets, exits, price alerts): only to the chat still linked.
const BET_NOTICES = new Set(['bet_opened', 'bet_cancelled', 'bet_settled', 'bet_exit', 'price_alert']);

export class ChatChannel implements OutboxChannel {
  readonly name: ChatTransport['name'];

  constructor(private readonly o: { db: Db; transport: ChatTransport; status?: ProviderStatus }) {
    this.name = o.transport.name;
  }

  /** A bet notice goes only to the chat its user still has linked; replies to a chat always go. */
  async stillWanted(row: NotificationRow): Promise<boolean> {
    if (!BET_NOTICES.has(row.kind) || row.user_id === null) return true;
    const link = await findLinkOfUser(this.o.db, row.user_id, row.transport);
    return link !== undefined && link.chat_id === row.chat_id;
  }

  send(row: NotificationRow): Promise<SendOutcome> {
    return this.o.transport.send({ chatId: row.chat_id ?? '', text: row.text, kind: row.kind, betId: row.bet_id, userId: row.user_id });
  }

  /** The chat blocked the bot: it is unlinked and nothing more is queued for it. */
  readonly blocked = {
    reason: 'chat blocked the bot',
    follow: async (trx: Db, row: NotificationRow): Promise<void> => {
      const chat = { transport: row.transport, chatId: row.chat_id ?? '' };
      await deleteLinkOfChat(trx, chat);
      await dropPendingOfChat(trx, chat, this.blocked.reason);
    },
  };

  serviceAnswered(works: boolean, at: number): void {
    if (works) this.o.status?.succeeded();
    else this.o.status?.failed(at);
  }
}
