// Queries of the payment area: users' provider columns, applied provider
// events, local-provider checkouts.
import type { Db } from '../db/database.js';
import type { SubscriptionColumns } from '../domain/payments.js';
import type { UserRow } from '../db/tables.js';

/** Records an applied event; throws a unique violation when it was applied before. */
export async function insertPayEvent(db: Db, eventId: string, type: string, receivedAt: number): Promise<void> {
  await db.insertInto('pay_events').values({ event_id: eventId, type, received_at: receivedAt }).execute();
}

export async function payEventExists(db: Db, eventId: string): Promise<boolean> {
  const row = await db.selectFrom('pay_events').select('event_id').where('event_id', '=', eventId).executeTakeFirst();
  return row !== undefined;
}

export async function deletePayEventsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('pay_events').where('received_at', '<', before).execute();
}

export async function findUserByCustomerId(db: Db, customerId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('pay_customer_id', '=', customerId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Sets the customer only if the user has none yet; false when another request set one first. */
export async function setCustomerIdIfNone(db: Db, userId: number, customerId: string): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ pay_customer_id: customerId })
    .where('id', '=', userId)
    .where('pay_customer_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function updateSubscriptionColumns(db: Db, userId: number, cols: SubscriptionColumns): Promise<void> {
  await db.updateTable('users').set(cols).where('id', '=', userId).execute();
}

export interface LocalCheckout {
  id: string;
  user_id: number;
  price_id: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
}

export async function insertLocalCheckout(db: Db, checkout: LocalCheckout): Promise<void> {
  await db.insertInto('pay_local_checkouts').values(checkout).execute();
}

/** A checkout of this user; another user's id finds nothing. */
export async function findLocalCheckout(db: Db, id: string, userId: number): Promise<LocalCheckout | undefined> {
  return db.selectFrom('pay_local_checkouts').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** Marks a pending, unexpired checkout completed; false when it was not (so only one confirmation wins). */
export async function completeLocalCheckout(db: Db, id: string, userId: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('pay_local_checkouts')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('completed_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function findUserBySubscriptionId(db: Db, subscriptionId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('pay_subscription_id', '=', subscriptionId).where('deleted_at', 'is', null).executeTakeFirst();
}
