import type { Kysely } from 'kysely';
import { ms, ref } from './helpers.js';

// Exit rules (issue 37, docs/exits.md): a bet's stop-loss and take-profit, as
// percent of gain from entry. One row a bet while it has a level; set_at is the
// instant of the last change, after which (exclusive) published quotes are
// checked against the levels. The row stays after the bet finishes, so the
// owner still sees the levels that stood; only OPEN bets' rules are live.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exit_rules')
    .addColumn('bet_id', ref, (c) => c.primaryKey().references('bets.id').onDelete('cascade'))
    .addColumn('ticker', 'varchar(16)', (c) => c.notNull())
    .addColumn('stop_loss', 'double precision')
    .addColumn('take_profit', 'double precision')
    .addColumn('set_at', ms, (c) => c.notNull())
    .execute();
  // The trigger engine's work: the rules on one instrument.
  await db.schema.createIndex('exit_rules_ticker_idx').on('exit_rules').columns(['ticker', 'bet_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('exit_rules').execute();
}
