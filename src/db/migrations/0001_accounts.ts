import type { Kysely } from 'kysely';
import { ms, ref, withId } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'varchar(30)', (c) => c.notNull())
    .addColumn('username_lower', 'varchar(30)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('extra_bets', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('extra_slots', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pay_customer_id', 'text', (c) => c.unique())
    .addColumn('pay_subscription_id', 'text')
    .addColumn('pay_subscription_status', 'text')
    .addColumn('pay_price_id', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('deleted_at', ms)
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('settings').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('users').execute();
}
