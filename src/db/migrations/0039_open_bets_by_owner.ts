import { type Kysely, sql } from 'kysely';

// The portfolio reads a user's OPEN bets (src/repositories/bets.ts
// listOpenBets). Through bets_user_opened_idx it walked every bet of the user
// and read each one's row from the table to test its status. This index holds
// only the open bets, keyed by owner and opening, with the columns the
// portfolio shows: the read is one range of one index, in the order shown.
// The query names the status as a literal, as the condition does: a bound
// status would not match it (migration 0037).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('bets_user_open_idx')
    .on('bets')
    .columns(['user_id', 'opened_at', 'id', 'ticker', 'direction', 'entry_price', 'target_date'])
    .where(sql.ref('status'), '=', 'OPEN')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_open_idx').execute();
}
