import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

// Theses (issue 38, docs/theses.md): kept beside the bets, not in them, since
// a bet has at most one, written once at opening and never edited. The hash
// is the one committed in the bet's opening entry of the record; the salt is
// served with the text so anyone can recompute it. counted_reports is kept
// in step with thesis_reports' counted rows in the report's transaction, so
// reading many theses (a feed page) needs no count.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bet_theses')
    .addColumn('bet_id', ref, (c) => c.primaryKey().references('bets.id').onDelete('cascade'))
    .addColumn('user_id', ref, (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('salt', 'varchar(32)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('hidden_at', ms)
    .addColumn('counted_reports', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // An account's deletion removes its theses by owner.
  await db.schema.createIndex('bet_theses_user_idx').on('bet_theses').column('user_id').execute();
  await db.schema
    .createTable('thesis_reports')
    .addColumn('bet_id', ref, (c) => c.notNull().references('bet_theses.bet_id').onDelete('cascade'))
    .addColumn('reporter_id', ref, (c) => c.notNull())
    .addColumn('counted', 'integer', (c) => c.notNull())
    .addColumn('reported_at', ms, (c) => c.notNull())
    // One report per user and thesis: a second is refused by the key, however the requests race.
    .addPrimaryKeyConstraint('thesis_reports_pk', ['bet_id', 'reporter_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('thesis_reports').execute();
  await db.schema.dropIndex('bet_theses_user_idx').execute();
  await db.schema.dropTable('bet_theses').execute();
}
