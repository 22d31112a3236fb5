import { type Kysely, PostgresAdapter, type QueryExecutorProvider, sql } from 'kysely';
import { finishedView } from '../../schemas/finished-bet-view.js';
import type { BetViewRow } from '../bet-columns.js';

// Each finished bet's view as lists show it, stored as JSON text by the update
// that finishes it (src/services/bets.ts), so that a page of history reads one
// value a row and builds and serializes no object (docs/performance.md). A
// finished bet's view never changes (its thesis, which can, is added when a
// page is read). The bets finished before get theirs here, from the function
// the service uses.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bets').addColumn('view_json', 'text').execute();
  await fillFinishedViews(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bets').dropColumn('view_json').execute();
}

const BATCH = 1000;

/**
 * Writes the view of every finished bet that has none, of the users named
 * (all without), a batch at a time by id: this migration's backfill, and what
 * rows written straight into the table (test fixtures) need, as
 * renumberHistory gives them their places.
 */
export async function fillFinishedViews(db: QueryExecutorProvider, userIds?: readonly number[]): Promise<void> {
  if (userIds !== undefined && userIds.length === 0) return;
  const only = userIds === undefined ? sql`` : sql`and user_id in (${sql.join(userIds)})`;
  for (let after = 0; ; ) {
    const { rows } = await sql<BetViewRow>`
      select id, ticker, direction, status, entry_price, exit_price, percentage_gain, opened_at, closed_at, close_reason
      from bets where closed_at is not null and view_json is null and id > ${after} ${only}
      order by id limit ${BATCH}
    `.execute(db);
    if (rows.length === 0) return;
    const views = sql.join(
      rows.map((r) => {
        const row = { ...r, id: Number(r.id), opened_at: Number(r.opened_at), closed_at: Number(r.closed_at) };
        return sql`(${row.id}, ${finishedView(row)})`;
      }),
    );
    await (db.getExecutor().adapter instanceof PostgresAdapter
      ? sql`update bets set view_json = v.view_json from (values ${views}) as v(id, view_json) where bets.id = v.id::bigint`
      : sql`with v(id, view_json) as (values ${views}) update bets set view_json = v.view_json from v where bets.id = v.id`
    ).execute(db);
    after = Number(rows[rows.length - 1]!.id);
  }
}
