import { type Kysely, sql } from 'kysely';
import { ms } from './helpers.js';

// Existing data for committed prices (issue 33 item 7, docs/rankings.md). A
// migration gets no price provider, so this one only marks the work: every
// bet not cancelled whose cancel window ended before now (before the quotes
// table had any quote to commit it at) is flagged unranked_reason
// 'backfill_pending'. The flag keeps the commitments job from committing an
// OPEN one at today's quote (a stand-in) and keeps every such bet unranked
// until the commitment backfill job (src/jobs/commitment-backfill.ts) has
// decided it: committed at the provider's price at its committed instant, or
// marked 'entry_not_quoted' (generated data). The flags are the job's
// progress, so it resumes after a restart; `data_jobs` records that its
// one-time aggregate recount is done.
export const BACKFILL_PENDING = 'backfill_pending';
const CANCEL_WINDOW_MS = 5 * 60 * 1000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_jobs')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done_at', ms)
    .execute();
  await sql`insert into data_jobs (name, processed, done_at) values ('commitment_backfill', 0, null)`.execute(db);
  // The job reads the flagged bets by id.
  await db.schema.createIndex('bets_backfill_idx').on('bets').column('id').where(sql.ref('unranked_reason'), '=', BACKFILL_PENDING).execute();
  await sql`
    update bets set unranked_reason = ${BACKFILL_PENDING}
    where status <> 'CANCELLED' and committed_price is null and ranked_gain is null and unranked_reason is null
      and opened_at <= ${Date.now() - CANCEL_WINDOW_MS}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update bets set unranked_reason = null where unranked_reason = ${BACKFILL_PENDING}`.execute(db);
  await db.schema.dropIndex('bets_backfill_idx').execute();
  await db.schema.dropTable('data_jobs').execute();
}
