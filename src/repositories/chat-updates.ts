// Messaging updates already acted on (dedupe of redeliveries).
import type { Db } from '../db/database.js';
import type { ChatTransportName } from '../db/tables.js';

export interface UpdateKey {
  transport: ChatTransportName;
  key: string;
}

/** Records an update inside the transaction acting on it; false when it was recorded before (then nothing may be done). */
export async function claimUpdate(db: Db, u: UpdateKey, now: number, answer: string | null): Promise<boolean> {
  const rows = await db
    .insertInto('chat_updates')
    .values({ transport: u.transport, update_key: u.key, received_at: now, answer })
    .onConflict((oc) => oc.columns(['transport', 'update_key']).doNothing())
    .returning('update_key')
    .execute();
  return rows.length > 0;
}

export async function findUpdate(db: Db, u: UpdateKey): Promise<{ answer: string | null } | undefined> {
  return db.selectFrom('chat_updates').select('answer').where('transport', '=', u.transport).where('update_key', '=', u.key).executeTakeFirst();
}

export async function deleteUpdatesBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('chat_updates').where('received_at', '<', before).execute();
}
