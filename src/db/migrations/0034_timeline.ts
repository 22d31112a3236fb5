import { type Kysely, sql } from 'kysely';
import { isPostgres, ms, ref } from './helpers.js';

// The feed's timelines (issue 35, docs/performance.md "The feed"): one row per
// follower and bet of a followed trader, kept by the bet's events and by
// follows (src/services/timeline.ts), so a page of GET /feed is one range of
// timeline_page_idx whatever the number of followed users. A trader with at
// least FANOUT_MAX_FOLLOWERS followers is marked in heavily_followed instead:
// their bets are read at read time through bets_user_event_idx.

/** The default of FEED_FANOUT_MAX_FOLLOWERS when this migration was written; fixed here, so the migration's result never changes. */
const FANOUT_MAX_FOLLOWERS = 1000;

export async function up(db: Kysely<unknown>): Promise<void> {
  // Keyed by (follower, bet) for the upsert of a bet's new event time; on
  // SQLite without a rowid, so the page's index holds the key and is covering.
  let timeline = db.schema
    .createTable('timeline')
    .addColumn('follower_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('bet_id', ref, (c) => c.notNull().references('bets.id').onDelete('cascade'))
    .addColumn('last_event_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('timeline_pk', ['follower_id', 'bet_id']);
  if (!isPostgres(db)) timeline = timeline.modifyEnd(sql`without rowid`);
  await timeline.execute();
  await db.schema.createIndex('timeline_page_idx').on('timeline').columns(['follower_id', 'last_event_at', 'bet_id']).execute();

  await db.schema
    .createTable('heavily_followed')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .execute();

  await sql`
    insert into heavily_followed (user_id)
    select followed_id from follows group by followed_id having count(*) >= ${sql.lit(FANOUT_MAX_FOLLOWERS)}
  `.execute(db);
  await sql`
    insert into timeline (follower_id, bet_id, last_event_at)
    select f.follower_id, b.id, b.last_event_at
    from follows f
    join users u on u.id = f.followed_id and u.deleted_at is null
    join bets b on b.user_id = f.followed_id
    where not exists (select 1 from heavily_followed h where h.user_id = f.followed_id)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('heavily_followed').execute();
  await db.schema.dropTable('timeline').execute();
}
