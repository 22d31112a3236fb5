import type { Kysely } from 'kysely';
import { ms, ref, withId } from './helpers.js';

// One notice model (DESIGN, GET /notifications): followed traders' bet events
// are derived when read (bets joined with follows since each follow began),
// so only the notices that are not about a followed trader's bet are rows
// here (account, settlement and league notices), plus each user's read marker.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('user_notices'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('text', 'varchar(1000)', (c) => c.notNull())
    // A path of the web app ('bet/12', 'leagues/3'), never a host: the app builds the address.
    .addColumn('link', 'varchar(500)')
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_notices_user_idx').on('user_notices').columns(['user_id', 'created_at', 'id']).execute();

  // Everything at or before read_until counts as read.
  await db.schema
    .createTable('notice_reads')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('read_until', ms, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notice_reads').execute();
  await db.schema.dropTable('user_notices').execute();
}
