import { type Kysely, sql } from 'kysely';
import { ms, sqlIn } from './helpers.js';

// The skill-weighted consensus (docs/consensus.md, issue 38): the open bets of
// one instrument are read by ticker (a partial index over OPEN bets only, so
// finished bets cost it nothing), and each instrument's call at each of its
// closes is kept with the prices that score it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('bets_open_ticker_idx')
    .on('bets')
    .columns(['ticker', 'direction', 'user_id'])
    .where(sql.ref('status'), '=', 'OPEN')
    .execute();
  await db.schema
    .createTable('consensus_calls')
    .addColumn('ticker', 'varchar(16)', (c) => c.notNull())
    .addColumn('close_at', ms, (c) => c.notNull())
    .addColumn('call', 'varchar(8)', (c) => c.notNull().check(sqlIn('call', ['long', 'short', 'none'])))
    .addColumn('holders', 'integer', (c) => c.notNull())
    .addColumn('long_weight', 'double precision')
    .addColumn('short_weight', 'double precision')
    .addColumn('close_price', 'double precision', (c) => c.notNull())
    .addColumn('next_close_at', ms, (c) => c.notNull())
    .addColumn('next_price', 'double precision')
    .addPrimaryKeyConstraint('consensus_calls_pk', ['ticker', 'close_at'])
    .execute();
  // The job's work: calls whose next close has not been priced yet.
  await db.schema
    .createIndex('consensus_calls_unscored_idx')
    .on('consensus_calls')
    .column('next_close_at')
    .where(sql.ref('next_price'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('consensus_calls').execute();
  await db.schema.dropIndex('bets_open_ticker_idx').execute();
}
