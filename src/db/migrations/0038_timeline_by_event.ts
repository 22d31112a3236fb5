import { type Kysely, sql } from 'kysely';
import { isPostgres, ms, ref } from './helpers.js';

// The timeline keyed by (follower, event time, bet): one b-tree where it had
// two, the table keyed by (follower, bet) and timeline_page_idx. Every event
// of a trader's bet writes a row of each follower's timeline, and each tree a
// row lives in is a page written to the WAL and checkpointed back: with two
// trees that was nine pages in ten of what an open and close wrote
// (docs/performance.md "The feed"). A bet's rows are found by their event
// time, which every follower's row of it shares with the bet
// (src/services/timeline.ts).

async function create(db: Kysely<unknown>, name: string, keyName: string, key: string[]): Promise<void> {
  let table = db.schema
    .createTable(name)
    .addColumn('follower_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('bet_id', ref, (c) => c.notNull().references('bets.id').onDelete('cascade'))
    .addColumn('last_event_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint(keyName, key as never);
  if (!isPostgres(db)) table = table.modifyEnd(sql`without rowid`);
  await table.execute();
}

/** Rebuilds the timeline under another key, its rows kept; the new table takes the name `timeline` and its key `timeline_pk`. */
async function rekey(db: Kysely<unknown>, key: string[]): Promise<void> {
  // A PostgreSQL key is an index, whose name must be free: the new one takes timeline_pk once the old table is gone.
  await create(db, 'timeline_rekeyed', isPostgres(db) ? 'timeline_rekeyed_pk' : 'timeline_pk', key);
  await sql`insert into timeline_rekeyed (follower_id, bet_id, last_event_at) select follower_id, bet_id, last_event_at from timeline`.execute(db);
  await db.schema.dropTable('timeline').execute();
  await db.schema.alterTable('timeline_rekeyed').renameTo('timeline').execute();
  if (isPostgres(db)) await sql`alter table timeline rename constraint timeline_rekeyed_pk to timeline_pk`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rekey(db, ['follower_id', 'last_event_at', 'bet_id']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rekey(db, ['follower_id', 'bet_id']);
  await db.schema.createIndex('timeline_page_idx').on('timeline').columns(['follower_id', 'last_event_at', 'bet_id']).execute();
}
