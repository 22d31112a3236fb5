import { type Kysely, sql } from 'kysely';
import { ms, ref, sqlIn, withId } from './helpers.js';

// Price alerts (issue 37, docs/alerts.md): a user's rule on one ticker, live
// until the first published quote at or after starts_at meets it, then kept
// with that quote's price and instant (fired_at, fired_price) so the list
// shows what fired and when. starts_at is the instant of the quote in force
// when the alert was set: that quote counts, so an alert already met fires at once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('price_alerts'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ticker', 'varchar(16)', (c) => c.notNull())
    .addColumn('kind', 'varchar(8)', (c) => c.notNull().check(sqlIn('kind', ['above', 'below', 'move'])))
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('starts_at', ms, (c) => c.notNull())
    .addColumn('fired_at', ms)
    .addColumn('fired_price', 'double precision')
    .addColumn('fired_change_percent', 'double precision')
    // The last quote instant evaluated without firing: the next pass resumes near it, not at starts_at.
    .addColumn('checked_until', ms)
    .execute();
  // The caller's list and capacity count; the trigger engine's live tickers and rules by ticker.
  await db.schema.createIndex('price_alerts_user_idx').on('price_alerts').columns(['user_id', 'id']).execute();
  await db.schema
    .createIndex('price_alerts_live_idx')
    .on('price_alerts')
    .columns(['ticker', 'starts_at'])
    .where(sql.ref('fired_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('price_alerts').execute();
}
