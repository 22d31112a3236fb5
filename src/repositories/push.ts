// Web Push devices (push_subscriptions, the kinds each chose) and the queueing
// of the push channel's outbox rows, one per device.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { NotificationKind } from '../db/tables.js';
import type { PushKind } from '../domain/push.js';
import { PENDING } from './outbox.js';
import { queuedNoticeColumns } from './queued-notice-columns.js';

export interface PushDevice {
  id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  updated_at: number;
  kinds: PushKind[];
}

async function withKinds(db: Db, rows: Array<Omit<PushDevice, 'kinds'>>): Promise<PushDevice[]> {
  if (rows.length === 0) return [];
  const kinds = await db
    .selectFrom('push_subscription_kinds')
    .select(['subscription_id', 'kind'])
    .where(
      'subscription_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('kind')
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    user_id: Number(r.user_id),
    kinds: kinds.filter((k) => Number(k.subscription_id) === Number(r.id)).map((k) => k.kind),
  }));
}

export async function listDevices(db: Db, userId: number): Promise<PushDevice[]> {
  const rows = await db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  return withKinds(db, rows);
}

export async function findDevice(db: Db, id: number): Promise<PushDevice | undefined> {
  const rows = await db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).execute();
  return (await withKinds(db, rows))[0];
}

export async function findDeviceByEndpoint(db: Db, endpoint: string): Promise<PushDevice | undefined> {
  const rows = await db.selectFrom('push_subscriptions').selectAll().where('endpoint', '=', endpoint).execute();
  return (await withKinds(db, rows))[0];
}

export async function countDevices(db: Db, userId: number): Promise<number> {
  const r = await db
    .selectFrom('push_subscriptions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export async function insertDevice(
  db: Db,
  d: { userId: number; endpoint: string; p256dh: string; auth: string; kinds: readonly PushKind[] },
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('push_subscriptions')
    .values({ user_id: d.userId, endpoint: d.endpoint, p256dh: d.p256dh, auth: d.auth, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  await setKinds(db, id, d.kinds);
  return id;
}

/** The same device subscribing again: its keys may be new, and its kinds are the ones chosen now. */
export async function updateDevice(db: Db, id: number, d: { p256dh: string; auth: string; kinds: readonly PushKind[] }, now: number): Promise<void> {
  await db.updateTable('push_subscriptions').set({ p256dh: d.p256dh, auth: d.auth, updated_at: now }).where('id', '=', id).execute();
  await setKinds(db, id, d.kinds);
}

async function setKinds(db: Db, id: number, kinds: readonly PushKind[]): Promise<void> {
  await db.deleteFrom('push_subscription_kinds').where('subscription_id', '=', id).execute();
  if (kinds.length > 0) {
    await db
      .insertInto('push_subscription_kinds')
      .values(kinds.map((kind) => ({ subscription_id: id, kind })))
      .execute();
  }
}

/** Removes a device and drops what is still queued for it; false when it was not there (or not this user's, when one is named). */
export async function deleteDevice(db: Db, id: number, userId: number | null, reason: string): Promise<boolean> {
  let q = db.deleteFrom('push_subscriptions').where('id', '=', id);
  if (userId !== null) q = q.where('user_id', '=', userId);
  const r = await q.executeTakeFirst();
  await dropPendingOfDevice(db, id, reason);
  return Number(r.numDeletedRows) > 0;
}

export async function dropPendingOfDevice(db: Db, id: number, reason: string): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ status: 'dropped', last_error: reason })
    .where('transport', '=', 'push')
    .where('push_subscription_id', '=', id)
    .where('status', '=', PENDING)
    .execute();
}

export interface PushNotice {
  kind: NotificationKind & PushKind;
  text: string;
  betId: number | null;
}

/**
 * Queues one push row per device that chose this kind, among the devices of
 * `to`: the followers of a trader, one user, or one device. One statement
 * however many devices; a device already holding this notice is skipped.
 */
export async function enqueuePush(db: Db, to: PushRecipients, notice: PushNotice, now: number): Promise<void> {
  await db.executeQuery(enqueuePushStatement(db, to, notice, now));
}

type PushRecipients = { followersOf: number } | { userId: number } | { deviceId: number };
type Recipients = 'followersOf' | 'userId' | 'deviceId';
type PushValues = { recipient: number; kind: PushNotice['kind']; text: string; betId: number | null; now: number };

// One prepared statement per kind of recipient: a bet's opening queues its
// followers' pushes on every open, where building the query cost more than running it.
const pushQuery = (recipients: Recipients) =>
  prepared((db, v: PushValues) =>
    db
      .insertInto('notifications')
      .columns(['user_id', 'transport', 'push_subscription_id', 'kind', 'text', 'bet_id', 'status', 'next_attempt_at', 'created_at'])
      .expression((eb) => {
        const q = eb
          .selectFrom('push_subscriptions as s')
          .innerJoin('push_subscription_kinds as k', 'k.subscription_id', 's.id')
          .innerJoin('users as u', 'u.id', 's.user_id')
          .select(['s.user_id', sql<'push'>`'push'`.as('transport'), 's.id as push_subscription_id', ...queuedNoticeColumns(v)])
          .where('k.kind', '=', v.kind)
          .where('u.deleted_at', 'is', null);
        if (recipients === 'followersOf') {
          return q.where((w) =>
            w.exists(
              w
                .selectFrom('follows as f')
                .select('f.follower_id')
                .whereRef('f.follower_id', '=', 's.user_id')
                .where('f.followed_id', '=', v.recipient),
            ),
          );
        }
        return q.where(recipients === 'userId' ? 's.user_id' : 's.id', '=', v.recipient);
      })
      .onConflict((oc) => oc.doNothing()),
  );

const pushQueries = { followersOf: pushQuery('followersOf'), userId: pushQuery('userId'), deviceId: pushQuery('deviceId') };

/** enqueuePush's statement, to send with others. */
export function enqueuePushStatement(db: Db, to: PushRecipients, notice: PushNotice, now: number) {
  const [recipients, recipient] =
    'followersOf' in to
      ? (['followersOf', to.followersOf] as const)
      : 'userId' in to
        ? (['userId', to.userId] as const)
        : (['deviceId', to.deviceId] as const);
  return pushQueries[recipients].statement(db, { recipient, kind: notice.kind, text: notice.text, betId: notice.betId, now });
}

/** A deleted account's devices go, and what was queued for them: its endpoints are not kept. */
export async function forgetDevicesOf(db: Db, userId: number): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ status: 'dropped', last_error: 'account deleted' })
    .where('transport', '=', 'push')
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .execute();
  await db.deleteFrom('push_subscriptions').where('user_id', '=', userId).execute();
}
