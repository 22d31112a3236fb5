// Follower notifications: written to the outbox inside each bet transaction
// (through ctx.betEvents), delivered later by the outbox worker.
import type { Db } from '../db/database.js';
import type { BetRow, ChatTransportName, NotificationRow } from '../db/tables.js';
import { cancelledText, openedText, settledText } from '../domain/notifications.js';
import { findLinkOfUser } from '../repositories/chat-links.js';
import {
  dropPendingOpenings,
  enqueueNotification,
  enqueueForLinkedFollowers,
  listOfUser,
  sentOpeningRecipients,
} from '../repositories/notifications.js';
import { findUserById } from '../repositories/users.js';
import type { Notification } from '../schemas/chat.js';
import type { BetEvent, BetEvents } from './bet-events.js';

export interface NoticeSettings {
  transport: ChatTransportName;
  webUrl: string;
}

async function ownerName(trx: Db, bet: BetRow): Promise<string> {
  return (await findUserById(trx, bet.user_id))?.username ?? 'A trader';
}

/** Queues the cancellation notice for one follower who got the opening notice (if still linked). */
export async function enqueueCancelNotice(trx: Db, s: NoticeSettings, bet: BetRow, followerId: number, now: number): Promise<void> {
  const link = await findLinkOfUser(trx, followerId, s.transport);
  if (!link) return;
  await enqueueNotification(
    trx,
    {
      user_id: followerId,
      transport: link.transport,
      chat_id: link.chat_id,
      kind: 'bet_cancelled',
      text: cancelledText(await ownerName(trx, bet), bet, s.webUrl),
      bet_id: bet.id,
    },
    now,
  );
}

async function onBetEvent(trx: Db, s: NoticeSettings, e: BetEvent): Promise<void> {
  const { bet, at } = e;
  if (e.kind === 'opened') {
    const text = openedText(e.ownerName ?? (await ownerName(trx, bet)), bet, s.webUrl);
    await enqueueForLinkedFollowers(trx, { followedId: bet.user_id, transport: s.transport, kind: 'bet_opened', text, betId: bet.id }, at);
  } else if (e.kind === 'cancelled') {
    // A queued opening notice is dropped with nothing to take back; the
    // delivered ones get a cancellation. An opening notice in flight right now
    // is settled by the worker when it records the send (see jobs/outbox.ts).
    await dropPendingOpenings(trx, bet.id);
    for (const followerId of await sentOpeningRecipients(trx, bet.id)) {
      await enqueueCancelNotice(trx, s, bet, followerId, at);
    }
  } else if (e.kind === 'settled') {
    const link = await findLinkOfUser(trx, bet.user_id, s.transport);
    if (!link) return;
    await enqueueNotification(
      trx,
      {
        user_id: bet.user_id,
        transport: link.transport,
        chat_id: link.chat_id,
        kind: 'bet_settled',
        text: settledText(bet, s.webUrl),
        bet_id: bet.id,
      },
      at,
    );
  }
}

export function registerNotificationListener(events: BetEvents, s: NoticeSettings): void {
  events.on((trx, e) => onBetEvent(trx, s, e));
}

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    kind: row.kind,
    text: row.text,
    bet_id: row.bet_id,
    created_at: new Date(row.created_at).toISOString(),
    status: row.status,
  };
}

export async function listNotifications(db: Db, userId: number, limit: number, offset: number): Promise<Notification[]> {
  return (await listOfUser(db, userId, limit, offset)).map(toNotification);
}
