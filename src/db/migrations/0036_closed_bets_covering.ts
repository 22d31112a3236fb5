import type { Kysely } from 'kysely';

// A trader's statistics (GET /user/{id}/stats) read every CLOSED bet of theirs
// in exit order: through (user_id, closed_at, id) alone, each of a 10,000-bet
// trader's rows was a lookup in the table (about 20 ms of the event loop on
// SQLite). With the four columns the statistics read (and the status they
// filter on) in the index, the read is one range of it. A close writes this
// index's entry anyway (closed_at changes), so writes pay no more entries.
const COVERED = ['user_id', 'closed_at', 'id', 'status', 'percentage_gain', 'ranked_gain', 'opened_at'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_closed_idx').execute();
  await db.schema.createIndex('bets_user_closed_idx').on('bets').columns(COVERED).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_closed_idx').execute();
  await db.schema.createIndex('bets_user_closed_idx').on('bets').columns(['user_id', 'closed_at', 'id']).execute();
}
