import { type Kysely, sql } from 'kysely';

// A finished bet's place in its owner's history (issue 35, docs/performance.md):
// 1 for the earliest exit, counting up by (closed_at, id), so the page at an
// offset is a seek on (user_id, history_pos) instead of a walk over every
// newer entry, and the history's size is the largest position. Kept by the
// betChanged handler in the finishing transaction (src/services/history.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bets').addColumn('history_pos', 'integer').execute();
  await sql`
    update bets set history_pos = ranked.pos
    from (select id, row_number() over (partition by user_id order by closed_at, id) as pos from bets where closed_at is not null) as ranked
    where ranked.id = bets.id
  `.execute(db);
  await db.schema
    .createIndex('bets_user_history_idx')
    .on('bets')
    .columns(['user_id', 'history_pos'])
    .where(sql.ref('history_pos'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_history_idx').execute();
  await db.schema.alterTable('bets').dropColumn('history_pos').execute();
}
