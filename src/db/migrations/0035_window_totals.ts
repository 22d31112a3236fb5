import { type Kysely, sql } from 'kysely';
import { isPostgres, ref } from './helpers.js';

// Each user's sums over each rolling window, kept beside the day rows so that
// a windowed board, a rank in it and the rankings read an index instead of
// summing every user's day rows per request (365 days of the full data: about
// a quarter of a second on the event loop, for any anonymous caller).
//
// window_starts holds, per period, the first day its rows count; the rows
// equal the day rows from that day on. A trigger on user_day_stats adds every
// change of a day row to the windows that count its day (the close path is
// unchanged and no write can miss it); moving a window's start (a new UTC day,
// src/services/window-totals.ts) recounts the users whose day rows it crosses.

/** The sums a window row keeps: user_day_stats's, without the wins. */
const WINDOW_SUMS = [
  ['trades', 'integer'],
  ['score_sum', 'double precision'],
  ['alpha_count', 'integer'],
  ['alpha_sum', 'double precision'],
  ['alpha_sq_sum', 'double precision'],
  ['ranked_trades', 'integer'],
  ['ranked_score_sum', 'double precision'],
  ['ranked_alpha_count', 'integer'],
  ['ranked_alpha_sum', 'double precision'],
  ['ranked_alpha_sq_sum', 'double precision'],
] as const;

/** The windows and their lengths in days when this migration was written (0: no bound); fixed here, so its result never changes. */
const PERIOD_DAYS = { '7d': 7, '30d': 30, '90d': 90, '365d': 365, all: 0 } as const;

const DAY_MS = 86_400_000;

/** The upsert adding a day row's change (`sign`·row, or new − old) to each window counting its day. */
function addToWindows(values: (column: string) => string, day: string, user: string): string {
  const names = WINDOW_SUMS.map(([c]) => c);
  return `insert into user_window_stats (period, user_id, ${names.join(', ')})
    select s.period, ${user}, ${names.map(values).join(', ')} from window_starts s where s.start_day <= ${day}
    on conflict (period, user_id) do update set ${names.map((c) => `${c} = user_window_stats.${c} + excluded.${c}`).join(', ')}`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('window_starts')
    .addColumn('period', 'varchar(8)', (c) => c.primaryKey())
    .addColumn('start_day', 'varchar(10)', (c) => c.notNull())
    .execute();
  let table = db.schema
    .createTable('user_window_stats')
    .addColumn('period', 'varchar(8)', (c) => c.notNull().references('window_starts.period'))
    .addColumn('user_id', ref, (c) => c.notNull().references('users.id').onDelete('cascade'));
  for (const [column, type] of WINDOW_SUMS) table = table.addColumn(column, type, (c) => c.notNull());
  await table.addPrimaryKeyConstraint('user_window_stats_pk', ['period', 'user_id']).execute();
  // A board's page and a rank are ranges of these, in the boards' order.
  await db.schema
    .createIndex('user_window_stats_raw_idx')
    .on('user_window_stats')
    .columns(['period', 'score_sum desc', 'trades desc', 'user_id'])
    .execute();
  await db.schema
    .createIndex('user_window_stats_ranked_idx')
    .on('user_window_stats')
    .columns(['period', 'ranked_score_sum desc', 'ranked_trades desc', 'user_id'])
    .where(sql.ref('ranked_trades'), '>', sql.lit(0))
    .execute();
  // A rank counts the range of an index ahead of the caller, less the deleted accounts in it: these.
  await db.schema.createIndex('users_deleted_idx').on('users').column('id').where(sql.ref('deleted_at'), 'is not', null).execute();
  // A start's move recounts a user from their day rows: a range of this per user.
  await db.schema.createIndex('user_day_stats_user_idx').on('user_day_stats').columns(['user_id', 'day']).execute();

  const now = Date.now();
  for (const [period, days] of Object.entries(PERIOD_DAYS)) {
    const start = days === 0 ? '' : new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);
    await sql`insert into window_starts (period, start_day) values (${period}, ${start})`.execute(db);
    await sql
      .raw(
        `insert into user_window_stats (period, user_id, ${WINDOW_SUMS.map(([c]) => c).join(', ')})
         select '${period}', user_id, ${WINDOW_SUMS.map(([c]) => `sum(${c})`).join(', ')}
         from user_day_stats where day >= '${start}' group by user_id`,
      )
      .execute(db);
  }

  const fromNew = addToWindows((c) => `new.${c}`, 'new.day', 'new.user_id');
  const fromOld = addToWindows((c) => `-old.${c}`, 'old.day', 'old.user_id');
  const change = addToWindows((c) => `new.${c} - old.${c}`, 'new.day', 'new.user_id');
  if (isPostgres(db)) {
    await sql
      .raw(
        `create function user_day_stats_to_windows() returns trigger language plpgsql as $$
         begin
           if tg_op = 'INSERT' then ${fromNew};
           elsif tg_op = 'DELETE' then ${fromOld};
           elsif new.day = old.day and new.user_id = old.user_id then ${change};
           else ${fromOld}; ${fromNew};
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        'create trigger user_day_stats_windows after insert or update or delete on user_day_stats for each row execute function user_day_stats_to_windows()',
      )
      .execute(db);
  } else {
    await sql.raw(`create trigger user_day_stats_windows_insert after insert on user_day_stats begin ${fromNew}; end`).execute(db);
    await sql.raw(`create trigger user_day_stats_windows_delete after delete on user_day_stats begin ${fromOld}; end`).execute(db);
    await sql
      .raw(
        `create trigger user_day_stats_windows_update after update on user_day_stats
         when new.day = old.day and new.user_id = old.user_id begin ${change}; end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger user_day_stats_windows_move after update on user_day_stats
         when new.day <> old.day or new.user_id <> old.user_id begin ${fromOld}; ${fromNew}; end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw('drop trigger user_day_stats_windows on user_day_stats').execute(db);
    await sql.raw('drop function user_day_stats_to_windows()').execute(db);
  } else {
    for (const name of ['insert', 'delete', 'update', 'move']) await sql.raw(`drop trigger user_day_stats_windows_${name}`).execute(db);
  }
  await db.schema.dropIndex('user_day_stats_user_idx').execute();
  await db.schema.dropIndex('users_deleted_idx').execute();
  await db.schema.dropTable('user_window_stats').execute();
  await db.schema.dropTable('window_starts').execute();
}
