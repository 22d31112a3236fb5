import { type Kysely, sql } from 'kysely';
import { isPostgres, ref } from './helpers.js';

// The ranked board and the rankings on ranked gains (docs/rankings.md): an
// all-time aggregate of ranked gains beside SPEC's `leaderboard`, and ranked
// sums on each user's day row beside the raw ones, both filled here from the
// bets already ranked and kept by the betChanged handlers from then on.
const RANKED_DAY_COLUMNS = [
  ['ranked_trades', 'integer'],
  ['ranked_score_sum', 'double precision'],
  ['ranked_wins', 'integer'],
  ['ranked_alpha_count', 'integer'],
  ['ranked_alpha_sum', 'double precision'],
  ['ranked_alpha_sq_sum', 'double precision'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ranked_leaderboard')
    .addColumn('user_id', ref, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('total_score', 'double precision', (c) => c.notNull())
    .addColumn('total_trades', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ranked_leaderboard_rank_idx')
    .on('ranked_leaderboard')
    .columns(['total_score desc', 'total_trades desc', 'user_id'])
    .execute();

  for (const [column, type] of RANKED_DAY_COLUMNS) {
    await db.schema
      .alterTable('user_day_stats')
      .addColumn(column, type, (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // A ranked window read is a range of days over the rows with ranked bets
  // only, every summed column in the index (an index-only read, as
  // user_day_stats_day_idx for the raw windows). Partial, so the raw reads'
  // plans never change and rows without a ranked bet cost no index entry.
  await db.schema
    .createIndex('user_day_stats_ranked_day_idx')
    .on('user_day_stats')
    .columns(['day', 'user_id', 'ranked_trades', 'ranked_score_sum', 'ranked_alpha_count', 'ranked_alpha_sum', 'ranked_alpha_sq_sum'])
    .where(sql.ref('ranked_trades'), '>', sql.lit(0))
    .execute();

  // The bets ranked before this migration ran (ranked_gain set by a close or settlement after 0022).
  await sql`
    insert into ranked_leaderboard (user_id, total_score, total_trades)
    select user_id, sum(ranked_gain), count(*) from bets where ranked_gain is not null group by user_id
  `.execute(db);
  const day = isPostgres(db)
    ? sql`to_char(to_timestamp(closed_at / 1000) at time zone 'UTC', 'YYYY-MM-DD')`
    : sql`strftime('%Y-%m-%d', closed_at / 1000, 'unixepoch')`;
  // Ranked alpha as alphaOf computes it, from the committed benchmark price: the ranked gain minus the
  // same direction's gain on the benchmark from benchmark_committed to benchmark_exit; none without both.
  const alpha = sql`case when benchmark_committed > 0 and benchmark_exit is not null then ranked_gain - (case when direction = 'LONG' then 1 else -1 end) * (benchmark_exit - benchmark_committed) / benchmark_committed * 100 end`;
  // Every ranked bet is CLOSED, so its day row exists (0012 and dayStatsHandler): only the ranked sums are set.
  await sql`
    insert into user_day_stats (user_id, day, trades, score_sum, wins, alpha_count, alpha_sum, alpha_sq_sum,
      ranked_trades, ranked_score_sum, ranked_wins, ranked_alpha_count, ranked_alpha_sum, ranked_alpha_sq_sum)
    select user_id, d, 0, 0, 0, 0, 0, 0, count(*), sum(ranked_gain), sum(case when ranked_gain > 0 then 1 else 0 end),
      count(a), coalesce(sum(a), 0), coalesce(sum(a * a), 0)
    from (select user_id, ${day} as d, ranked_gain, ${alpha} as a from bets where ranked_gain is not null) r
    group by user_id, d
    on conflict (day, user_id) do update set
      ranked_trades = excluded.ranked_trades,
      ranked_score_sum = excluded.ranked_score_sum,
      ranked_wins = excluded.ranked_wins,
      ranked_alpha_count = excluded.ranked_alpha_count,
      ranked_alpha_sum = excluded.ranked_alpha_sum,
      ranked_alpha_sq_sum = excluded.ranked_alpha_sq_sum
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('user_day_stats_ranked_day_idx').execute();
  for (const [column] of [...RANKED_DAY_COLUMNS].reverse()) {
    await db.schema.alterTable('user_day_stats').dropColumn(column).execute();
  }
  await db.schema.dropTable('ranked_leaderboard').execute();
}
