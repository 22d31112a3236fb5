import type { Kysely } from 'kysely';
import { ms, ref, sqlIn, withId } from './helpers.js';

// Leagues (docs/leagues.md): a competition among members over a fixed window
// with rules fixed at the start; its members; and, once it ended, its frozen
// final board with the hash published in the verifiable record.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('leagues'))
    .addColumn('owner_id', ref, (c) => c.notNull().references('users.id'))
    .addColumn('name', 'varchar(80)', (c) => c.notNull())
    .addColumn('description', 'varchar(1000)', (c) => c.notNull())
    .addColumn('visibility', 'varchar(10)', (c) => c.notNull().check(sqlIn('visibility', ['private', 'public'])))
    .addColumn('invite_code', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('starts_at', ms, (c) => c.notNull())
    .addColumn('ends_at', ms, (c) => c.notNull())
    .addColumn('member_limit', 'integer', (c) => c.notNull())
    .addColumn('instruments', 'varchar(10)', (c) => c.notNull().check(sqlIn('instruments', ['all', 'stocks', 'crypto'])))
    .addColumn('min_closed_bets', 'integer', (c) => c.notNull())
    .addColumn('scoring', 'varchar(10)', (c) => c.notNull().check(sqlIn('scoring', ['gain', 'skill'])))
    .addColumn('created_at', ms, (c) => c.notNull())
    // Set once by the worker that sent the start notices.
    .addColumn('start_noticed_at', ms)
    // The last UTC day whose daily standing went out.
    .addColumn('standing_day', 'varchar(10)')
    // The frozen final board: set once, in the transaction that settles the league.
    .addColumn('settled_at', ms)
    .addColumn('final_document', 'text')
    .addColumn('board_hash', 'varchar(64)')
    // The record day whose Merkle root holds the board's hash, and its leaf.
    .addColumn('record_day', 'varchar(10)')
    .addColumn('record_leaf_idx', 'integer')
    .execute();
  // The workers: leagues ending (not yet settled), and leagues settled but not yet in a day's root.
  await db.schema.createIndex('leagues_ends_idx').on('leagues').columns(['settled_at', 'ends_at']).execute();
  await db.schema.createIndex('leagues_record_day_idx').on('leagues').columns(['record_day', 'settled_at']).execute();
  // Public leagues open to join.
  await db.schema.createIndex('leagues_public_start_idx').on('leagues').columns(['visibility', 'starts_at', 'id']).execute();

  await db.schema
    .createTable('league_members')
    .addColumn('league_id', ref, (c) => c.notNull().references('leagues.id').onDelete('cascade'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id'))
    .addColumn('joined_at', ms, (c) => c.notNull())
    // Left after the start: still on the board to the end, no longer notified.
    .addColumn('left_at', ms)
    // 1: sends the daily standing while the league runs (the member may opt out).
    .addColumn('daily_standing', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('league_members_pk', ['league_id', 'user_id'])
    .execute();
  await db.schema.createIndex('league_members_user_idx').on('league_members').columns(['user_id', 'league_id']).execute();

  // A league board reads its members' bets opened within its window: a range per member.
  await db.schema.createIndex('bets_user_opened_idx').on('bets').columns(['user_id', 'opened_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_opened_idx').execute();
  await db.schema.dropTable('league_members').execute();
  await db.schema.dropTable('leagues').execute();
}
