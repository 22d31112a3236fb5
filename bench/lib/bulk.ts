// Bulk loading for both dialects: prepared multi-row INSERTs inside large
// transactions, with the loaded tables' secondary indexes (and, on
// PostgreSQL, foreign keys) dropped during the load and rebuilt after from
// their own definitions, which is far cheaper than maintaining them row by row.
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Row } from './dataset.js';

export interface BulkTarget {
  insert(table: string, columns: string[], rows: Iterable<Row>, onProgress: (done: number) => void): Promise<number>;
  exec(sql: string): Promise<void>;
  hasTable(name: string): Promise<boolean>;
  /** Drops the tables' secondary indexes and returns a function that rebuilds them. */
  dropIndexes(tables: string[]): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const PROGRESS_EVERY = 50_000;

export function sqliteTarget(sqlite: SQLite.Database): BulkTarget {
  // The load only: a crash midway leaves a database nobody keeps.
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('cache_size = -131072');
  return {
    async insert(table, columns, rows, onProgress) {
      // SQLite binds at most 32,766 parameters per statement.
      const batch = Math.min(500, Math.floor(32_000 / columns.length));
      const one = `(${columns.map(() => '?').join(',')})`;
      const head = `insert into ${table} (${columns.join(',')}) values `;
      const many = sqlite.prepare(head + Array(batch).fill(one).join(','));
      const single = sqlite.prepare(head + one);
      let buffer: Row[] = [];
      let done = 0;
      const flush = () => {
        if (buffer.length === batch) many.run(buffer.flat());
        else for (const r of buffer) single.run(r);
        done += buffer.length;
        buffer = [];
      };
      sqlite.exec('begin');
      for (const row of rows) {
        buffer.push(row);
        if (buffer.length === batch) {
          flush();
          if (done % (batch * 200) === 0) {
            sqlite.exec('commit');
            sqlite.exec('begin');
          }
          if (done % PROGRESS_EVERY < batch) onProgress(done);
        }
      }
      flush();
      sqlite.exec('commit');
      onProgress(done);
      return done;
    },
    async exec(sql) {
      sqlite.exec(sql);
    },
    async hasTable(name) {
      return sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(name) !== undefined;
    },
    async dropIndexes(tables) {
      const list = sqlite
        .prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${tables.map(() => '?').join(',')})`)
        .all(...tables) as Array<{ name: string; sql: string }>;
      for (const ix of list) sqlite.exec(`drop index ${ix.name}`);
      return async () => {
        for (const ix of list) sqlite.exec(ix.sql);
      };
    },
    async close() {
      sqlite.pragma('synchronous = FULL');
      sqlite.pragma('foreign_keys = ON');
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    },
  };
}

export async function postgresTarget(url: string, schema: string): Promise<BulkTarget> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  await client.query('set synchronous_commit = off');
  return {
    async insert(table, columns, rows, onProgress) {
      // PostgreSQL binds at most 65,535 parameters per statement.
      const batch = Math.min(2000, Math.floor(60_000 / columns.length));
      const head = `insert into ${table} (${columns.join(',')}) values `;
      const text = (n: number) =>
        head + Array.from({ length: n }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(',')})`).join(',');
      const full = { name: `bulk_${table}`, text: text(batch) };
      let buffer: Row[] = [];
      let done = 0;
      const flush = async () => {
        if (buffer.length === 0) return;
        const values = buffer.flat();
        await client.query(buffer.length === batch ? { ...full, values } : { text: text(buffer.length), values });
        done += buffer.length;
        buffer = [];
      };
      await client.query('begin');
      for (const row of rows) {
        buffer.push(row);
        if (buffer.length === batch) {
          await flush();
          if (done % PROGRESS_EVERY < batch) onProgress(done);
        }
      }
      await flush();
      await client.query('commit');
      onProgress(done);
      return done;
    },
    async exec(sql) {
      await client.query(sql);
    },
    async hasTable(name) {
      const { rows } = await client.query<{ t: string | null }>('select to_regclass($1)::text as t', [name]);
      return rows[0]?.t != null;
    },
    async dropIndexes(tables) {
      const { rows: fks } = await client.query<{ tbl: string; name: string; def: string }>(
        `select c.conrelid::regclass::text as tbl, c.conname as name, pg_get_constraintdef(c.oid) as def
           from pg_constraint c where c.contype = 'f' and c.connamespace = $1::regnamespace
            and c.conrelid::regclass::text = any($2)`,
        [schema, tables],
      );
      // Indexes that back a constraint (primary keys, uniques) stay.
      const { rows: indexes } = await client.query<{ name: string; def: string }>(
        `select indexname as name, indexdef as def from pg_indexes
          where schemaname = $1 and tablename = any($2)
            and indexname not in (select conname from pg_constraint where connamespace = $1::regnamespace)`,
        [schema, tables],
      );
      for (const fk of fks) await client.query(`alter table ${fk.tbl} drop constraint ${fk.name}`);
      for (const ix of indexes) await client.query(`drop index ${ix.name}`);
      return async () => {
        for (const ix of indexes) await client.query(ix.def);
        for (const fk of fks) await client.query(`alter table ${fk.tbl} add constraint ${fk.name} ${fk.def}`);
      };
    },
    async close() {
      await client.end();
    },
  };
}
