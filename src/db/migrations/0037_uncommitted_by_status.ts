import { type Kysely, sql } from 'kysely';

// The commitment job reads, every second, the OPEN bets not yet committed
// (src/jobs/commitments.ts). Migration 0022's partial index held exactly
// those, keyed by opened_at, with status = 'OPEN' in its condition. A
// condition is matched against the query's text, and the query binds the
// status as a parameter, so SQLite (and PostgreSQL's generic plans) could not
// use it: the job walked every open bet through (status, settle_at) instead,
// 10 ms of SQLite's time each second with 50,000 open bets. Keyed by (status,
// opened_at), the index is chosen for the bound status, and its condition
// names only what the query states as it is (IS NULL).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_uncommitted_idx').execute();
  await db.schema
    .createIndex('bets_uncommitted_idx')
    .on('bets')
    .columns(['status', 'opened_at'])
    .where(sql.ref('committed_price'), 'is', null)
    .where(sql.ref('unranked_reason'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_uncommitted_idx').execute();
  await db.schema
    .createIndex('bets_uncommitted_idx')
    .on('bets')
    .column('opened_at')
    .where(sql.ref('status'), '=', 'OPEN')
    .where(sql.ref('committed_price'), 'is', null)
    .where(sql.ref('unranked_reason'), 'is', null)
    .execute();
}
