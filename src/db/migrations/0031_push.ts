import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isPostgres, ms, ref, sqlIn, withId } from './helpers.js';

// Web Push (docs/push.md): each device's subscription and the notice kinds
// it chose, and the outbox's third recipient column (push_subscription_id,
// the push channel's rows). Exactly one recipient is still set, the one the
// row's transport reads. A device gets its own row of a notice, so the
// once-per-notice index of 0017 covers the other channels and a second one
// covers push rows per device. SQLite cannot change a CHECK, so it rebuilds
// the table as 0021 did.

const ONE_RECIPIENT_0021 = sql`case when transport = 'email' then email is not null and chat_id is null else chat_id is not null and email is null end`;
const ONE_RECIPIENT = sql`case when transport = 'email' then email is not null and chat_id is null and push_subscription_id is null
  when transport = 'push' then push_subscription_id is not null and chat_id is null and email is null
  else chat_id is not null and email is null and push_subscription_id is null end`;

const COLUMNS =
  'id, user_id, transport, chat_id, email, kind, text, bet_id, status, attempts, next_attempt_at, claim_token, claimed_until, created_at, sent_at, last_error';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('push_subscriptions'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('endpoint', 'varchar(2048)', (c) => c.notNull().unique())
    .addColumn('p256dh', 'varchar(128)', (c) => c.notNull())
    .addColumn('auth', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_subscriptions_user_idx').on('push_subscriptions').columns(['user_id', 'id']).execute();
  await db.schema
    .createTable('push_subscription_kinds')
    .addColumn('subscription_id', ref, (c) => c.notNull().references('push_subscriptions.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(16)', (c) =>
      c.notNull().check(sqlIn('kind', ['bet_opened', 'bet_cancelled', 'bet_settled', 'bet_exit', 'price_alert', 'league_notice'])),
    )
    .addPrimaryKeyConstraint('push_subscription_kinds_pk', ['subscription_id', 'kind'])
    .execute();
  // Enqueueing for a notice kind looks devices up by kind.
  await db.schema.createIndex('push_subscription_kinds_kind_idx').on('push_subscription_kinds').columns(['kind', 'subscription_id']).execute();

  if (isPostgres(db)) {
    await sql`alter table notifications add column push_subscription_id bigint`.execute(db);
    await sql`alter table notifications drop constraint notifications_one_recipient`.execute(db);
    await sql`alter table notifications add constraint notifications_one_recipient check (${ONE_RECIPIENT})`.execute(db);
    await onceIndexes(db);
    return;
  }
  await notificationsTable(db, (t) => t.addColumn('push_subscription_id', ref).addCheckConstraint('notifications_one_recipient', ONE_RECIPIENT));
  await sql.raw(`insert into notifications_new (${COLUMNS}) select ${COLUMNS} from notifications`).execute(db);
  await replaceNotifications(db);
  await onceIndexes(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from notifications where transport = 'push'`.execute(db);
  if (isPostgres(db)) {
    await db.schema.dropIndex('notifications_push_once_uq').execute();
    await db.schema.dropIndex('notifications_bet_once_uq').execute();
    await db.schema
      .createIndex('notifications_bet_once_uq')
      .on('notifications')
      .columns(['bet_id', 'user_id', 'kind', 'transport'])
      .unique()
      .execute();
    await sql`alter table notifications drop constraint notifications_one_recipient`.execute(db);
    await sql`alter table notifications add constraint notifications_one_recipient check (${ONE_RECIPIENT_0021})`.execute(db);
    await sql`alter table notifications drop column push_subscription_id`.execute(db);
  } else {
    await notificationsTable(db, (t) => t.addCheckConstraint('notifications_one_recipient', ONE_RECIPIENT_0021));
    await sql.raw(`insert into notifications_new (${COLUMNS}) select ${COLUMNS} from notifications`).execute(db);
    await replaceNotifications(db);
    await db.schema
      .createIndex('notifications_bet_once_uq')
      .on('notifications')
      .columns(['bet_id', 'user_id', 'kind', 'transport'])
      .unique()
      .execute();
  }
  await db.schema.dropTable('push_subscription_kinds').execute();
  await db.schema.dropTable('push_subscriptions').execute();
}

/** One notice per recipient: per user and channel for chat and email, per device for push. */
async function onceIndexes(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await db.schema.dropIndex('notifications_bet_once_uq').execute();
  await db.schema
    .createIndex('notifications_bet_once_uq')
    .on('notifications')
    .columns(['bet_id', 'user_id', 'kind', 'transport'])
    .unique()
    .where(sql.ref('transport'), '<>', 'push')
    .execute();
  await db.schema
    .createIndex('notifications_push_once_uq')
    .on('notifications')
    .columns(['bet_id', 'push_subscription_id', 'kind'])
    .unique()
    .where(sql.ref('transport'), '=', 'push')
    .execute();
}

/** The outbox table as 0021 left it, with the check (and push column) given by `recipients` (SQLite's rebuild). */
async function notificationsTable(
  db: Kysely<unknown>,
  recipients: (t: CreateTableBuilder<string, 'id'>) => CreateTableBuilder<string, 'id'>,
): Promise<void> {
  const table = withId(db, db.schema.createTable('notifications_new'))
    .addColumn('user_id', ref, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('chat_id', 'varchar(64)')
    .addColumn('email', 'varchar(254)');
  await recipients(table)
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
}

/** Swaps the rebuilt table in and puts back the indexes other than the once-per-notice ones. */
async function replaceNotifications(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notifications').execute();
  await sql`alter table notifications_new rename to notifications`.execute(db);
  await db.schema.createIndex('notifications_due_idx').on('notifications').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('notifications_user_idx').on('notifications').columns(['user_id', 'id']).execute();
}
