// What the outbox worker needs from a messaging service.
import type { ChatTransportName, NotificationKind } from '../../domain/notifications.js';

export interface OutgoingNotice {
  chatId: string;
  /** Plain text; the transport escapes it for its format. */
  text: string;
  kind: NotificationKind;
  betId: number | null;
  /** The recipient's account (null for a reply to a chat that belongs to nobody). */
  userId?: number | null;
}

export type SendOutcome =
  | { ok: true }
  /** Worth trying again later; retryAfterMs when the service said how long to wait (Telegram's 429). */
  | { ok: false; reason: 'retry'; error: string; retryAfterMs?: number }
  /** The user blocked the bot: the chat must be unlinked. */
  | { ok: false; reason: 'blocked'; error: string }
  /** Will never succeed (bad chat id, malformed request). */
  | { ok: false; reason: 'permanent'; error: string };

export interface ChatTransport {
  readonly name: ChatTransportName;
  send(notice: OutgoingNotice): Promise<SendOutcome>;
}
