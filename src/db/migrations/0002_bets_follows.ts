import type { Kysely } from 'kysely';
import { ms, ref, sqlIn, withId } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('bets'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ticker', 'varchar(16)', (c) => c.notNull())
    .addColumn('direction', 'varchar(5)', (c) => c.notNull().check(sqlIn('direction', ['LONG', 'SHORT'])))
    .addColumn('status', 'varchar(9)', (c) => c.notNull().check(sqlIn('status', ['OPEN', 'CLOSED', 'CANCELLED'])))
    .addColumn('entry_price', 'double precision', (c) => c.notNull())
    .addColumn('exit_price', 'double precision')
    .addColumn('percentage_gain', 'double precision')
    .addColumn('target_date', 'varchar(10)')
    .addColumn('settle_at', ms)
    .addColumn('opened_at', ms, (c) => c.notNull())
    .addColumn('closed_at', ms)
    .addColumn('last_event_at', ms, (c) => c.notNull())
    .addColumn('close_reason', 'varchar(16)')
    .addColumn('source_bet_id', ref, (c) => c.references('bets.id').onDelete('set null'))
    .addColumn('source_kind', 'varchar(4)')
    .execute();
  // Portfolio and capacity checks: a user's bets by status.
  await db.schema.createIndex('bets_user_status_idx').on('bets').columns(['user_id', 'status']).execute();
  // History: a user's finished bets newest first.
  await db.schema.createIndex('bets_user_closed_idx').on('bets').columns(['user_id', 'closed_at', 'id']).execute();
  // Feed: followed users' bets by their latest event.
  await db.schema.createIndex('bets_user_event_idx').on('bets').columns(['user_id', 'last_event_at', 'id']).execute();
  // Settlement worker: open bets due for settlement.
  await db.schema.createIndex('bets_status_settle_idx').on('bets').columns(['status', 'settle_at']).execute();
  await db.schema.createIndex('bets_source_idx').on('bets').column('source_bet_id').execute();

  await db.schema
    .createTable('leaderboard')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('total_score', 'double precision', (c) => c.notNull())
    .addColumn('total_trades', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('leaderboard_rank_idx').on('leaderboard').columns(['total_score desc', 'total_trades desc', 'user_id']).execute();

  await db.schema
    .createTable('follows')
    .addColumn('follower_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('followed_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followed_id'])
    .execute();
  await db.schema.createIndex('follows_followed_idx').on('follows').columns(['followed_id', 'follower_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('follows').execute();
  await db.schema.dropTable('leaderboard').execute();
  await db.schema.dropTable('bets').execute();
}
