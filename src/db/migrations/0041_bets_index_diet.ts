import { type Kysely, sql } from 'kysely';

// Every index on bets is written by each open and close: a leaf page of each
// in the WAL, copied again by the checkpoint. Three of them held entries no
// read needs:
// - bets_user_status_idx (user_id, status): the reads of a user's OPEN bets
//   (the capacity check, the count, the league boards) take the partial
//   bets_user_open_idx (migration 0039), naming the status as a literal;
//   the count by status takes bets_user_closed_idx, which holds the status.
// - bets_status_settle_idx (status, settle_at) held every bet, closed or
//   without a target date too; the settlement reads ask only for OPEN bets
//   whose settle_at has come, which this partial index holds alone.
// - bets_source_idx held a NULL for every bet that copies none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_status_idx').execute();
  await db.schema.dropIndex('bets_status_settle_idx').execute();
  await db.schema
    .createIndex('bets_open_settle_idx')
    .on('bets')
    .column('settle_at')
    .where(sql.ref('status'), '=', 'OPEN')
    .where(sql.ref('settle_at'), 'is not', null)
    .execute();
  await db.schema.dropIndex('bets_source_idx').execute();
  await db.schema.createIndex('bets_source_idx').on('bets').column('source_bet_id').where(sql.ref('source_bet_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_source_idx').execute();
  await db.schema.createIndex('bets_source_idx').on('bets').column('source_bet_id').execute();
  await db.schema.dropIndex('bets_open_settle_idx').execute();
  await db.schema.createIndex('bets_status_settle_idx').on('bets').columns(['status', 'settle_at']).execute();
  await db.schema.createIndex('bets_user_status_idx').on('bets').columns(['user_id', 'status']).execute();
}
