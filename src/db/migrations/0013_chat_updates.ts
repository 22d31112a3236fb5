import type { Kysely } from 'kysely';
import { ms } from './helpers.js';

// Messaging updates already acted on (Telegram's update_id), written in the
// transaction of the action: a redelivered update is recognised and does
// nothing again. Rows older than a week are pruned.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chat_updates')
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('update_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('received_at', ms, (c) => c.notNull())
    // What a button press was answered, to answer a redelivery the same way.
    .addColumn('answer', 'text')
    .addPrimaryKeyConstraint('chat_updates_pk', ['transport', 'update_key'])
    .execute();
  await db.schema.createIndex('chat_updates_received_idx').on('chat_updates').column('received_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chat_updates').execute();
}
