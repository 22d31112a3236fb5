// Moving up: copies every table of a SQLite database into a fresh PostgreSQL
// database. The migrations create the schema there (the same ones the
// service runs), rows go over in foreign-key order, sequences are reset past
// the copied ids, and the result is checked: row counts per table, the
// leaderboard aggregate against the closed bets it sums, and the ranked
// board's against the ranked bets it sums.
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../db/database.js';

/** The PostgreSQL database copied into, in the schema it resolves to. */
type Target = Pick<DatabaseHandle, 'db' | 'pgSchema'>;
import { migrations } from '../db/migrations/index.js';

/** Kysely's own bookkeeping: the target's migrations write it. */
const SKIP = new Set(['kysely_migration', 'kysely_migration_lock']);
const BATCH = 500;

export interface CopyResult {
  tables: Array<{ name: string; rows: number }>;
  leaderboardUsers: number;
}

export class CopyError extends Error {}

/** Tables in an order where every table comes after the tables it references. */
export function dependencyOrder(tables: string[], references: Map<string, string[]>): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: string, trail: string[]) => {
    if (state.get(t) === 'done') return;
    if (state.get(t) === 'visiting') throw new CopyError(`foreign keys form a cycle: ${[...trail, t].join(' → ')}`);
    state.set(t, 'visiting');
    for (const parent of references.get(t) ?? []) if (parent !== t && tables.includes(parent)) visit(parent, [...trail, t]);
    state.set(t, 'done');
    order.push(t);
  };
  for (const t of [...tables].sort()) visit(t, []);
  return order;
}

function sourceTables(src: SQLite.Database): { order: string[]; columns: Map<string, string[]> } {
  const names = (src.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as Array<{ name: string }>)
    .map((r) => r.name)
    .filter((n) => !SKIP.has(n));
  const references = new Map<string, string[]>();
  const columns = new Map<string, string[]>();
  for (const n of names) {
    references.set(
      n,
      (src.pragma(`foreign_key_list("${n}")`) as Array<{ table: string }>).map((fk) => fk.table),
    );
    columns.set(
      n,
      (src.pragma(`table_info("${n}")`) as Array<{ name: string }>).map((c) => c.name),
    );
  }
  return { order: dependencyOrder(names, references), columns };
}

async function assertFresh(target: Target): Promise<void> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = current_schema()`.execute(
    target.db,
  );
  if (rows[0].n > 0) throw new CopyError('the target PostgreSQL database (its current schema) is not empty: copy only into a fresh one');
}

/** Rows of a table, in primary-key order so self-references (a bet copying an earlier bet) point backwards. */
function* rowsOf(src: SQLite.Database, table: string): Generator<Array<Record<string, unknown>>> {
  const hasRowid = !(src.prepare('select sql from sqlite_master where name = ?').get(table) as { sql: string }).sql.match(/without\s+rowid/i);
  const stmt = src.prepare(`select * from "${table}" ${hasRowid ? 'order by rowid' : ''}`);
  let batch: Array<Record<string, unknown>> = [];
  for (const row of stmt.iterate() as Iterable<Record<string, unknown>>) {
    batch.push(row);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** Each user's leaderboard row next to the sum and count of their CLOSED bets; mismatches only. */
async function leaderboardMismatches(target: Target): Promise<string[]> {
  const { rows } = await sql<{ user_id: number; score: number | null; trades: number | null; sum: number | null; n: number }>`
    select coalesce(l.user_id, b.user_id) as user_id, l.total_score as score, l.total_trades as trades, b.sum, coalesce(b.n, 0)::int as n
    from leaderboard l
    full outer join (
      select user_id, sum(percentage_gain) as sum, count(*) as n from bets where status = 'CLOSED' group by user_id
    ) b on b.user_id = l.user_id`.execute(target.db);
  return mismatchesOf(rows, 'leaderboard', 'closed bets');
}

/** Each user's ranked board row next to the sum and count of their ranked gains; mismatches only. */
async function rankedLeaderboardMismatches(target: Target): Promise<string[]> {
  const { rows } = await sql<{ user_id: number; score: number | null; trades: number | null; sum: number | null; n: number }>`
    select coalesce(l.user_id, b.user_id) as user_id, l.total_score as score, l.total_trades as trades, b.sum, coalesce(b.n, 0)::int as n
    from ranked_leaderboard l
    full outer join (
      select user_id, sum(ranked_gain) as sum, count(*) as n from bets where ranked_gain is not null group by user_id
    ) b on b.user_id = l.user_id`.execute(target.db);
  return mismatchesOf(rows, 'ranked board', 'ranked bets');
}

function mismatchesOf(
  rows: Array<{ user_id: number; score: number | null; trades: number | null; sum: number | null; n: number }>,
  board: string,
  bets: string,
): string[] {
  const out: string[] = [];
  for (const r of rows) {
    const score = r.score ?? 0;
    const sum = r.sum ?? 0;
    if (Math.abs(score - sum) > 1e-6 * Math.max(1, Math.abs(sum)) || (r.trades ?? 0) !== r.n) {
      out.push(`user ${r.user_id}: ${board} ${score}/${r.trades ?? 0} trades, ${bets} ${sum}/${r.n}`);
    }
  }
  return out;
}

/**
 * Tables a migration fills on a fresh database (data_jobs: the one-time data
 * jobs still to run on its data; window_starts: each window's first day). Emptied
 * before the copy, so the source's rows replace them; with no window start, the
 * day rows' triggers add nothing while user_day_stats is copied, and the
 * source's window rows, which already count those day rows, follow.
 */
const MIGRATION_SEEDED_TABLES = ['data_jobs', 'window_starts'] as const;

export async function copySqliteToPostgres(
  from: DatabaseConfig,
  to: DatabaseConfig,
  log: (line: string) => void = () => undefined,
): Promise<CopyResult> {
  if (from.dialect !== 'sqlite' || from.path === ':memory:') throw new CopyError('FROM must be a SQLite file (sqlite:PATH)');
  if (to.dialect !== 'postgres') throw new CopyError('TO must be a PostgreSQL database (postgres://…)');
  const src = new SQLite(from.path, { readonly: true, fileMustExist: true });
  const pgHandle = openDatabase(to, { pgPoolSize: 2 });
  try {
    const applied = (src.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((r) => r.name);
    const expected = Object.keys(migrations).sort();
    if (applied.join() !== expected.join()) {
      throw new CopyError(
        `the SQLite database is at migration ${applied.at(-1) ?? 'none'}, this version expects ${expected.at(-1)}: start the service on it once first`,
      );
    }
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(pgHandle.db);
    const target = { db: pgHandle.db, pgSchema: rows[0].schema };
    await assertFresh(target);
    await migrateToLatest(target);

    const { order, columns } = sourceTables(src);
    const copied: CopyResult['tables'] = [];
    // One transaction: a failed copy leaves the tables empty, not half-filled.
    await target.db.transaction().execute(async (trx) => {
      // Rows the migrations wrote about the target's own (empty) data give way to the source's.
      for (const table of MIGRATION_SEEDED_TABLES) await sql`delete from ${sql.table(table)}`.execute(trx);
      for (const table of order) {
        let n = 0;
        const cols = columns.get(table)!;
        for (const batch of rowsOf(src, table)) {
          const values = batch.map((row) => sql`(${sql.join(cols.map((c) => sql`${row[c]}`))})`);
          await sql`insert into ${sql.table(table)} (${sql.join(cols.map((c) => sql.ref(c)))}) values ${sql.join(values)}`.execute(trx);
          n += batch.length;
        }
        if (cols.includes('id')) {
          // Serial columns continue after the copied ids (text ids have no sequence).
          const { rows: seq } = await sql<{ name: string | null }>`select pg_get_serial_sequence(${table}, 'id') as name`.execute(trx);
          if (seq[0].name) {
            await sql`select setval(${seq[0].name}, coalesce((select max(id) from ${sql.table(table)}), 1), ${n > 0})`.execute(trx);
          }
        }
        copied.push({ name: table, rows: n });
        log(`${table}: ${n} rows`);
      }
    });

    for (const { name, rows: n } of copied) {
      const { rows: c } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(name)}`.execute(target.db);
      if (c[0].n !== n) throw new CopyError(`${name}: ${n} rows read, ${c[0].n} in the target`);
    }
    const mismatches = await leaderboardMismatches(target);
    if (mismatches.length) throw new CopyError(`leaderboard does not equal the sum over CLOSED bets: ${mismatches.slice(0, 5).join('; ')}`);
    const rankedMismatches = await rankedLeaderboardMismatches(target);
    if (rankedMismatches.length) {
      throw new CopyError(`ranked board does not equal the sum over ranked bets: ${rankedMismatches.slice(0, 5).join('; ')}`);
    }
    const leaders = copied.find((t) => t.name === 'leaderboard')?.rows ?? 0;
    return { tables: copied, leaderboardUsers: leaders };
  } finally {
    src.close();
    await pgHandle.close();
  }
}
