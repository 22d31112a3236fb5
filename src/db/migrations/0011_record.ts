import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

// The verifiable record: per-user append-only hash chains of bet events and
// the daily Merkle roots over their heads.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('record_entries')
    .addColumn('user_id', ref, (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('bet_id', ref, (c) => c.notNull())
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    .addColumn('at', ms, (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_entries_pk', ['user_id', 'seq'])
    .execute();
  await db.schema
    .createTable('record_days')
    .addColumn('day', 'varchar(10)', (c) => c.primaryKey())
    .addColumn('root', 'varchar(64)', (c) => c.notNull())
    .addColumn('tree_size', 'integer', (c) => c.notNull())
    .addColumn('published_at', ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('record_day_leaves')
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('user_id', ref, (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_day_leaves_pk', ['day', 'idx'])
    .execute();
  await db.schema.createIndex('record_day_leaves_user_idx').on('record_day_leaves').columns(['user_id', 'day']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('record_day_leaves').execute();
  await db.schema.dropTable('record_days').execute();
  await db.schema.dropTable('record_entries').execute();
}
