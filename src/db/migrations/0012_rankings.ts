import { type Kysely, sql } from 'kysely';
import { isPostgres, ref } from './helpers.js';

// Leaderboard windows and the skill ranking: the benchmark's price at each
// bet's open and close (alpha), and per-user per-UTC-day aggregates of closed
// bets, so windows are read from one row per user and day, never from bets.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bets').addColumn('benchmark_entry', 'double precision').execute();
  await db.schema.alterTable('bets').addColumn('benchmark_exit', 'double precision').execute();
  await db.schema
    .createTable('user_day_stats')
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('trades', 'integer', (c) => c.notNull())
    .addColumn('score_sum', 'double precision', (c) => c.notNull())
    .addColumn('wins', 'integer', (c) => c.notNull())
    .addColumn('alpha_count', 'integer', (c) => c.notNull())
    .addColumn('alpha_sum', 'double precision', (c) => c.notNull())
    .addColumn('alpha_sq_sum', 'double precision', (c) => c.notNull())
    // Day first: no plan can read a window as per-user seeks across every user (a skip-scan).
    .addPrimaryKeyConstraint('user_day_stats_pk', ['day', 'user_id'])
    .execute();
  // A window read is a range of days; with every summed column in the index it
  // never reads the table (an index-only scan of the window's rows).
  await db.schema
    .createIndex('user_day_stats_day_idx')
    .on('user_day_stats')
    .columns(['day', 'user_id', 'trades', 'score_sum', 'alpha_count', 'alpha_sum', 'alpha_sq_sum'])
    .execute();

  // Bets closed before this migration count in every window; they have no benchmark prices, so no alpha.
  const day = isPostgres(db)
    ? sql`to_char(to_timestamp(closed_at / 1000) at time zone 'UTC', 'YYYY-MM-DD')`
    : sql`strftime('%Y-%m-%d', closed_at / 1000, 'unixepoch')`;
  await sql`
    insert into user_day_stats (user_id, day, trades, score_sum, wins, alpha_count, alpha_sum, alpha_sq_sum)
    select user_id, ${day}, count(*), sum(percentage_gain), sum(case when percentage_gain > 0 then 1 else 0 end), 0, 0, 0
    from bets where status = 'CLOSED' group by user_id, ${day}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_day_stats').execute();
  await db.schema.alterTable('bets').dropColumn('benchmark_exit').execute();
  await db.schema.alterTable('bets').dropColumn('benchmark_entry').execute();
}
