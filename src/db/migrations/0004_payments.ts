import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Provider confirmations already applied: the primary key on the event id is
  // what makes a replay (even a parallel one) a no-op.
  await db.schema
    .createTable('pay_events')
    .addColumn('event_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('type', 'varchar(100)', (c) => c.notNull())
    .addColumn('received_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pay_events_received_idx').on('pay_events').column('received_at').execute();

  // Checkouts of the local provider, each bound to the user who started it.
  await db.schema
    .createTable('pay_local_checkouts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('price_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('completed_at', ms)
    .execute();
  await db.schema.createIndex('pay_local_checkouts_user_idx').on('pay_local_checkouts').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pay_local_checkouts').execute();
  await db.schema.dropTable('pay_events').execute();
}
