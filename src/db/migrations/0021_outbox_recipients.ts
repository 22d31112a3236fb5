import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isPostgres, ms, ref, sqlIn, withId } from './helpers.js';

// Each outbox channel's recipient in a column of its own kind: a chat's id in
// chat_id, a mail's address in the new email column (0017 kept it in
// chat_id). Exactly one of them is set, the one the row's transport reads.
// SQLite cannot drop NOT NULL from chat_id, so it rebuilds the table.

const ONE_RECIPIENT = sql`case when transport = 'email' then email is not null and chat_id is null else chat_id is not null and email is null end`;

const COLUMNS =
  'id, user_id, transport, chat_id, kind, text, bet_id, status, attempts, next_attempt_at, claim_token, claimed_until, created_at, sent_at, last_error';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table notifications add column email varchar(254)`.execute(db);
    await sql`alter table notifications alter column chat_id drop not null`.execute(db);
    await sql`update notifications set email = chat_id, chat_id = null where transport = 'email'`.execute(db);
    await sql`alter table notifications add constraint notifications_one_recipient check (${ONE_RECIPIENT})`.execute(db);
    return;
  }
  await notificationsTable(db, 'notifications_new', (t) =>
    t.addColumn('chat_id', 'varchar(64)').addColumn('email', 'varchar(254)').addCheckConstraint('notifications_one_recipient', ONE_RECIPIENT),
  );
  await sql
    .raw(
      `insert into notifications_new (${COLUMNS}, email)
       select id, user_id, transport, case when transport = 'email' then null else chat_id end, kind, text, bet_id, status, attempts,
              next_attempt_at, claim_token, claimed_until, created_at, sent_at, last_error,
              case when transport = 'email' then chat_id end
       from notifications`,
    )
    .execute(db);
  await replaceNotifications(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table notifications drop constraint notifications_one_recipient`.execute(db);
    await sql`update notifications set chat_id = email where transport = 'email'`.execute(db);
    await sql`alter table notifications alter column chat_id set not null`.execute(db);
    await sql`alter table notifications drop column email`.execute(db);
    return;
  }
  await notificationsTable(db, 'notifications_new', (t) => t.addColumn('chat_id', 'varchar(64)', (c) => c.notNull()));
  await sql
    .raw(
      `insert into notifications_new (${COLUMNS})
       select id, user_id, transport, coalesce(chat_id, email), kind, text, bet_id, status, attempts,
              next_attempt_at, claim_token, claimed_until, created_at, sent_at, last_error
       from notifications`,
    )
    .execute(db);
  await replaceNotifications(db);
}

/** The outbox table as 0006 made it, with its recipient columns added by `recipients` (SQLite's rebuild). */
async function notificationsTable(
  db: Kysely<unknown>,
  name: string,
  recipients: (t: CreateTableBuilder<string, 'id'>) => CreateTableBuilder<string, 'id'>,
): Promise<void> {
  const table = withId(db, db.schema.createTable(name))
    .addColumn('user_id', ref, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('transport', 'varchar(16)', (c) => c.notNull());
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

/** Swaps the rebuilt table in and puts back the indexes of 0006 and 0017. */
async function replaceNotifications(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notifications').execute();
  await sql`alter table notifications_new rename to notifications`.execute(db);
  await db.schema.createIndex('notifications_due_idx').on('notifications').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('notifications_user_idx').on('notifications').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('notifications_bet_once_uq').on('notifications').columns(['bet_id', 'user_id', 'kind', 'transport']).unique().execute();
}
