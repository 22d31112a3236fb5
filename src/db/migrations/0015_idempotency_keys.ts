import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

// Idempotency-Key of the writes (DESIGN): one row per user and key, claimed
// in flight (status null) before the write runs, then holding the answer to
// replay. Rows older than 24 hours are pruned (created_at's index).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
    // SHA-256 (hex) of the method, path and body the key was first used with.
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    // The claim's time: the in-flight lease and the 24-hour expiry count from it.
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('status', 'integer')
    // The answer's headers that matter and its body, as JSON, once finished.
    .addColumn('answer', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
