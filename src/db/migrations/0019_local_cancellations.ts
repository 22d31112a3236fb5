import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

// The local payment provider's cancellations scheduled for a period's end
// (its portal's "cancel at the end of the period"): one per user at most.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pay_local_cancellations')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('subscription_id', 'varchar(255)', (c) => c.notNull())
    // The end of the period: the plan ends then.
    .addColumn('cancel_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pay_local_cancellations_at_idx').on('pay_local_cancellations').column('cancel_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pay_local_cancellations').execute();
}
