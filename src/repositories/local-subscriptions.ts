// The local payment provider's own subscription records, kept where a real
// provider would keep them on its side: when each subscription began (its
// confirmed checkout) and the cancellations scheduled for a period's end
// (rows of the settings table under "local_cancel:<user id>").
import type { Db } from '../db/database.js';

const PREFIX = 'local_cancel:';

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

function parse(key: string, value: string): ScheduledCancel | null {
  try {
    const v = JSON.parse(value) as { subscription_id?: unknown; at?: unknown };
    const userId = Number(key.slice(PREFIX.length));
    if (typeof v.subscription_id !== 'string' || typeof v.at !== 'number' || !Number.isSafeInteger(userId)) return null;
    return { userId, subscriptionId: v.subscription_id, at: v.at };
  } catch {
    return null;
  }
}

export async function findScheduledCancel(db: Db, userId: number): Promise<ScheduledCancel | null> {
  const row = await db.selectFrom('settings').select(['key', 'value']).where('key', '=', `${PREFIX}${userId}`).executeTakeFirst();
  return row ? parse(row.key, row.value) : null;
}

export async function saveScheduledCancel(db: Db, c: ScheduledCancel): Promise<void> {
  const value = JSON.stringify({ subscription_id: c.subscriptionId, at: c.at });
  await db
    .insertInto('settings')
    .values({ key: `${PREFIX}${c.userId}`, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

export async function deleteScheduledCancel(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', `${PREFIX}${userId}`).execute();
}

/** Every scheduled cancellation (a handful: the local provider serves demos and development). */
export async function listScheduledCancels(db: Db): Promise<ScheduledCancel[]> {
  const rows = await db.selectFrom('settings').select(['key', 'value']).where('key', 'like', `${PREFIX}%`).execute();
  return rows.map((r) => parse(r.key, r.value)).filter((c): c is ScheduledCancel => c !== null);
}
