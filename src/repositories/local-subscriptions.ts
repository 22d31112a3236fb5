// The local payment provider's own subscription records, kept where a real
// provider would keep them on its side: when each subscription began (its
// confirmed checkout) and the cancellations scheduled for a period's end.
import type { Db } from '../db/database.js';

export interface ScheduledCancel {
  userId: number;
  subscriptionId: string;
  /** Epoch ms: the end of the period, when the plan ends. */
  at: number;
}

/** When the user's current local subscription began: its checkout's confirmation time (the latest one). */
export async function localSubscriptionStart(db: Db, userId: number): Promise<number | null> {
  const row = await db
    .selectFrom('pay_local_checkouts')
    .select((eb) => eb.fn.max('completed_at').as('started'))
    .where('user_id', '=', userId)
    .where('completed_at', 'is not', null)
    .executeTakeFirst();
  return row?.started === null || row?.started === undefined ? null : Number(row.started);
}

export async function findScheduledCancel(db: Db, userId: number): Promise<ScheduledCancel | null> {
  const row = await db.selectFrom('pay_local_cancellations').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row ? { userId: row.user_id, subscriptionId: row.subscription_id, at: Number(row.cancel_at) } : null;
}

export async function saveScheduledCancel(db: Db, c: ScheduledCancel): Promise<void> {
  await db
    .insertInto('pay_local_cancellations')
    .values({ user_id: c.userId, subscription_id: c.subscriptionId, cancel_at: c.at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ subscription_id: c.subscriptionId, cancel_at: c.at }))
    .execute();
}

export async function deleteScheduledCancel(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('pay_local_cancellations').where('user_id', '=', userId).execute();
}

/** The cancellations whose period has ended by `now`, earliest first. */
export async function listDueCancels(db: Db, now: number): Promise<ScheduledCancel[]> {
  const rows = await db.selectFrom('pay_local_cancellations').selectAll().where('cancel_at', '<=', now).orderBy('cancel_at').execute();
  return rows.map((r) => ({ userId: r.user_id, subscriptionId: r.subscription_id, at: Number(r.cancel_at) }));
}
