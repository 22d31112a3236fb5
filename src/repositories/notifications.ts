import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { ChatTransportName, NewNotification, NotificationKind } from '../db/tables.js';
import type { ChatAddress } from './chat-links.js';
import { PENDING } from './outbox.js';
import { queuedNoticeColumns } from './queued-notice-columns.js';

export type QueuedNotice = Omit<NewNotification, 'status' | 'attempts' | 'next_attempt_at' | 'created_at'>;

/**
 * Queues notices (one statement); a second notice of the same kind for the same recipient and bet is ignored.
 * The conflict names no index: the once-per-notice index is partial since
 * push rows have their own per device (migration 0031), and PostgreSQL matches
 * a named target only with the index's predicate.
 */
export async function enqueueNotifications(db: Db, notices: QueuedNotice[], now: number): Promise<void> {
  // Chunks keep each statement under SQLite's bound-parameter limit.
  for (let i = 0; i < notices.length; i += 500) {
    await db
      .insertInto('notifications')
      .values(notices.slice(i, i + 500).map((n) => ({ ...n, status: 'pending' as const, next_attempt_at: now, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function enqueueNotification(db: Db, notice: QueuedNotice, now: number): Promise<void> {
  await enqueueNotifications(db, [notice], now);
}

/** The other channel's recipient column: a typed NULL, for PostgreSQL's UNION (as queuedNoticeColumns types its numbers). */
const noAddress = sql<string | null>`cast(null as varchar(254))`;

/**
 * Queues one delivery of a bet's notice for every follower of its owner who
 * has a chat linked on this transport, and one for every follower who chose
 * email for each notice and has their address verified: one statement
 * however many followers there are, so a trader with many followers opens a
 * bet in the same few statements. Chat rows carry the chat in chat_id, email rows the address in email.
 */
export async function enqueueForLinkedFollowers(db: Db, notice: FollowersNotice, now: number): Promise<void> {
  await db.executeQuery(enqueueForLinkedFollowersStatement(db, notice, now));
}

type FollowersNotice = { followedId: number; transport: ChatTransportName; kind: NotificationKind; text: string; betId: number };

type FollowersValues = { followedId: number; transport: ChatTransportName; kind: NotificationKind; text: string; betId: number; now: number };

// Prepared: every opening runs it, and building the query cost more than running it.
const followersQuery = prepared((db, v: FollowersValues) =>
  db
    .insertInto('notifications')
    .columns(['user_id', 'transport', 'chat_id', 'email', 'kind', 'text', 'bet_id', 'status', 'next_attempt_at', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('follows')
        .innerJoin('chat_links', 'chat_links.user_id', 'follows.follower_id')
        .select([
          'chat_links.user_id',
          'chat_links.transport',
          sql.ref<string | null>('chat_links.chat_id').as('chat_id'),
          noAddress.as('email'),
          ...queuedNoticeColumns(v),
        ])
        .where('follows.followed_id', '=', v.followedId)
        .where('chat_links.transport', '=', v.transport)
        .unionAll(
          eb
            .selectFrom('follows')
            .innerJoin('users', 'users.id', 'follows.follower_id')
            .innerJoin('email_verified', (j) => j.onRef('email_verified.user_id', '=', 'users.id').onRef('email_verified.email', '=', 'users.email'))
            .innerJoin('notice_settings', 'notice_settings.user_id', 'users.id')
            .select([
              'users.id as user_id',
              sql<ChatTransportName>`'email'`.as('transport'),
              noAddress.as('chat_id'),
              'users.email as email',
              ...queuedNoticeColumns(v),
            ])
            .where('follows.followed_id', '=', v.followedId)
            .where('notice_settings.email_notices', '=', 'each')
            .where('users.deleted_at', 'is', null),
        ),
    )
    .onConflict((oc) => oc.doNothing()),
);

/** enqueueForLinkedFollowers's statement, to send with others. */
export function enqueueForLinkedFollowersStatement(db: Db, notice: FollowersNotice, now: number) {
  return followersQuery.statement(db, { ...notice, now });
}

export async function dropPendingOpenings(db: Db, betId: number): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ status: 'dropped', last_error: 'bet cancelled before delivery' })
    .where('bet_id', '=', betId)
    .where('kind', '=', 'bet_opened')
    .where('status', '=', 'pending')
    .execute();
}

/** Recipients whose opening notice of a bet was delivered, with the channel that carried it (and the device, for push). */
export async function sentOpeningRecipients(
  db: Db,
  betId: number,
): Promise<Array<{ userId: number; transport: ChatTransportName; deviceId: number | null }>> {
  const rows = await db
    .selectFrom('notifications')
    .select(['user_id', 'transport', 'push_subscription_id'])
    .where('bet_id', '=', betId)
    .where('kind', '=', 'bet_opened')
    .where('status', '=', 'sent')
    .execute();
  return rows.flatMap((r) =>
    r.user_id === null
      ? []
      : [{ userId: Number(r.user_id), transport: r.transport, deviceId: r.push_subscription_id === null ? null : Number(r.push_subscription_id) }],
  );
}

/** Drops what is still queued for a user's chat (after unlinking), replies to the chat, email and push excepted. */
export async function dropPendingOfUser(db: Db, userId: number): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ status: 'dropped', last_error: 'chat unlinked' })
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .where('kind', '!=', 'chat_reply')
    .where('transport', 'not in', ['email', 'push'])
    .execute();
}

export async function dropPendingOfChat(db: Db, chat: ChatAddress, reason: string): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ status: 'dropped', last_error: reason })
    .where('transport', '=', chat.transport)
    .where('chat_id', '=', chat.chatId)
    .where('status', '=', PENDING)
    .execute();
}

/** Queues one email to the address `to`. */
export async function enqueueMail(
  db: Db,
  mail: { userId: number | null; to: string; kind: NotificationKind; text: string; betId?: number | null },
  now: number,
): Promise<void> {
  await enqueueNotifications(
    db,
    [{ user_id: mail.userId, transport: 'email', email: mail.to, kind: mail.kind, text: mail.text, bet_id: mail.betId ?? null }],
    now,
  );
}
