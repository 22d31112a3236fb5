import { type Kysely, sql } from 'kysely';
import { ms } from './helpers.js';

// Committed prices and ranked gains (docs/rankings.md). Every quote the
// service publishes is kept for a while, so a bet's committed price (the first
// quote at or after the end of its cancel window) and a settlement's price
// (the first at or after its due instant) are facts any instance can look up,
// however late it looks. Bets gain the committed prices, the ranked gain and,
// for bets that can never be ranked, the reason.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quotes')
    .addColumn('ticker', 'varchar(16)', (c) => c.notNull())
    .addColumn('published_at', ms, (c) => c.notNull())
    .addColumn('price', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('quotes_pk', ['ticker', 'published_at'])
    .execute();
  await db.schema.createIndex('quotes_published_idx').on('quotes').column('published_at').execute();

  for (const column of ['committed_price', 'benchmark_committed', 'ranked_gain'] as const) {
    await db.schema.alterTable('bets').addColumn(column, 'double precision').execute();
  }
  await db.schema.alterTable('bets').addColumn('unranked_reason', 'varchar(32)').execute();
  // The commitment job's work: open bets not yet committed, by opening time.
  await db.schema
    .createIndex('bets_uncommitted_idx')
    .on('bets')
    .column('opened_at')
    .where(sql.ref('status'), '=', 'OPEN')
    .where(sql.ref('committed_price'), 'is', null)
    .where(sql.ref('unranked_reason'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_uncommitted_idx').execute();
  for (const column of ['unranked_reason', 'ranked_gain', 'benchmark_committed', 'committed_price'] as const) {
    await db.schema.alterTable('bets').dropColumn(column).execute();
  }
  await db.schema.dropTable('quotes').execute();
}
