import { type Kysely, sql } from 'kysely';
import { isPostgres, ms, ref, sqlIn } from './helpers.js';

// Email (docs/email.md): one-time tokens (only their SHA-256 stored), the
// address each user has verified, and what each user wants by email. Mail
// leaves through the notifications outbox as transport 'email', its address
// in chat_id; a follower may now get one opening notice per channel.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table notifications alter column chat_id type varchar(254)`.execute(db);
  }
  await db.schema.dropIndex('notifications_bet_once_uq').execute();
  await db.schema.createIndex('notifications_bet_once_uq').on('notifications').columns(['bet_id', 'user_id', 'kind', 'transport']).unique().execute();

  await db.schema
    .createTable('email_tokens')
    // SHA-256 of the 256-bit token, hex.
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(8)', (c) => c.notNull().check(sqlIn('purpose', ['verify', 'reset', 'change'])))
    // The address the token proves (verify, change) or was sent to (reset).
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('used_at', ms)
    .execute();
  await db.schema.createIndex('email_tokens_user_idx').on('email_tokens').columns(['user_id', 'purpose']).execute();

  // Verified when this address is still the account's address.
  await db.schema
    .createTable('email_verified')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('verified_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('notice_settings')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('email_notices', 'varchar(8)', (c) => c.notNull().check(sqlIn('email_notices', ['off', 'each', 'digest'])))
    .addColumn('digest_hour', 'integer', (c) => c.notNull())
    .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
    // The digest worker's queue: the next digest's instant (null unless email_notices is 'digest').
    .addColumn('next_digest_at', ms)
    // The next digest covers followed traders' bet events after this instant.
    .addColumn('digest_since', ms)
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notice_settings_digest_idx').on('notice_settings').column('next_digest_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notice_settings').execute();
  await db.schema.dropTable('email_verified').execute();
  await db.schema.dropTable('email_tokens').execute();
  await db.schema.dropIndex('notifications_bet_once_uq').execute();
  await db.schema.createIndex('notifications_bet_once_uq').on('notifications').columns(['bet_id', 'user_id', 'kind']).unique().execute();
}
