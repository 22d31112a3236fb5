import type { Kysely } from 'kysely';
import { ms, ref, sqlIn, withId } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One chat per user and one user per chat: relinking a chat moves it.
  await db.schema
    .createTable('chat_links')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('chat_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('linked_at', ms, (c) => c.notNull())
    .addUniqueConstraint('chat_links_chat_uq', ['transport', 'chat_id'])
    .execute();

  // Only the hash of a code is kept; a new code replaces the user's previous one.
  await db.schema
    .createTable('chat_link_codes')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .execute();

  // The notification outbox: written in the transaction of the change it
  // reports, delivered afterwards by the outbox worker.
  await withId(db, db.schema.createTable('notifications'))
    .addColumn('user_id', ref, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('chat_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('bet_id', ref, (c) => c.references('bets.id').onDelete('set null'))
    .addColumn('status', 'varchar(8)', (c) => c.notNull().check(sqlIn('status', ['pending', 'sent', 'failed', 'dropped'])))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ms, (c) => c.notNull())
    .addColumn('claim_token', 'varchar(32)')
    .addColumn('claimed_until', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('sent_at', ms)
    .addColumn('last_error', 'text')
    .execute();
  // The worker's queue: due pending notices in order.
  await db.schema.createIndex('notifications_due_idx').on('notifications').columns(['status', 'next_attempt_at', 'id']).execute();
  // GET /notifications: a user's notices newest first.
  await db.schema.createIndex('notifications_user_idx').on('notifications').columns(['user_id', 'id']).execute();
  // At most one notice of a kind per recipient and bet, whatever retries or races happen.
  await db.schema.createIndex('notifications_bet_once_uq').on('notifications').columns(['bet_id', 'user_id', 'kind']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notifications').execute();
  await db.schema.dropTable('chat_link_codes').execute();
  await db.schema.dropTable('chat_links').execute();
}
