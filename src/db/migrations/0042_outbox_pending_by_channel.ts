import { type Kysely, sql } from 'kysely';

// Each outbox channel claims its own due rows (src/jobs/outbox.ts), but the
// index they read was keyed by status first: a channel's claim walked every
// pending row of the other channels, a row lookup each, to find its own, and
// so did the outbox's depth gauge. With one channel's backlog of 170,000
// notices, every idle channel's claim took tens of milliseconds on the event
// loop once a second. Keyed by channel first, holding the pending rows only,
// a claim is one seek and the gauge counts index entries; sent and dropped
// rows, most of the table, are in no such entry.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('notifications_due_idx').execute();
  await db.schema
    .createIndex('notifications_pending_idx')
    .on('notifications')
    .columns(['transport', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('notifications_pending_idx').execute();
  await db.schema.createIndex('notifications_due_idx').on('notifications').columns(['status', 'next_attempt_at', 'id']).execute();
}
