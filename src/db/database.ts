// The one database object: it opens the configured database (SQLite or
// PostgreSQL) behind one Kysely interface, owns its dialect, its SQLite handle
// and its group committer, runs write transactions and the work that waits for
// their commit, and applies the migrations.
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent, Migrator, PostgresAdapter, PostgresDialect, type Selectable, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseConfig, DEFAULT_POOL_SIZE } from '../config.js';
import { isPossibleId } from '../domain/ids.js';
import { type CheckpointOptions, Checkpointer, type CheckpointStats, DEFAULT_CHECKPOINT } from './checkpointer.js';
import { type CommitEvent, GROUP_COMMIT, GroupCommitter, MEMBER_RELEASE } from './group-commit.js';
import { migrations } from './migrations/index.js';
import { NamedStatements, withNamedStatements } from './named-statements.js';
import { type RoundTrips, withPipelinedBegin } from './pipelined-begin.js';
import { SearchPathDialect } from './schema-introspector.js';
import { SyncedSnapshot } from './synced-snapshot.js';
import { ReadWriteSqliteDialect } from './sqlite-driver.js';
import { withStatementCache } from './statement-cache.js';
import type { Database, Db } from './tables.js';
import { WalSync } from './wal-sync.js';

export type { Db } from './tables.js';
export type Dialect = 'sqlite' | 'postgres';

// int8 (counts, bigint ids and timestamps) as JS numbers: every value we keep
// there is far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** SQLite's page cache per connection, in KiB (see openDatabase). */
export const SQLITE_CACHE_KIB = 16 * 1024;

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate themselves in a fresh schema). */
  pgSchema?: string;
  pgPoolSize?: number;
  /** Told the SQL of every statement run, transaction control included (tests count round trips). */
  onQuery?: (sql: string) => void;
  /**
   * False for a database whose data need not survive a power loss (tests):
   * on SQLite synchronous=OFF, no WAL sync after commits and SQLite's own
   * checkpoints; on PostgreSQL synchronous_commit=off, so a commit returns
   * before its WAL record is flushed. Default true.
   */
  durable?: boolean;
  /** SQLite: when the checkpoint worker runs (src/db/checkpointer.ts). */
  checkpoint?: CheckpointOptions;
  /** SQLite: told each step of each group commit (tests of their order). */
  onCommitEvent?: (event: CommitEvent) => void;
  /**
   * SQLite: false for no read connection beside the writer, so that the
   * writer alone has the file open: a bulk load that leaves WAL mode for its
   * duration (bench/lib/generate.ts) needs that. Default true.
   */
  reader?: boolean;
}

/** What makes a SQLite file's commits durable off the event loop: the WAL's sync and the checkpoint worker. */
interface WalDurability {
  wal: WalSync;
  checkpointer: Checkpointer;
}

/**
 * The rows services lock, and the lock each takes on PostgreSQL. Users: FOR
 * NO KEY UPDATE, not FOR UPDATE: inserting a row that references the user (a
 * bet, a follow) takes FOR KEY SHARE on it, which NO KEY UPDATE does not
 * conflict with, so insert-then-lock in two transactions cannot deadlock.
 */
const ROW_LOCKS = { users: 'no key update', bets: 'update', leagues: 'update' } as const;
export type LockedTable = keyof typeof ROW_LOCKS;

/** The dialect a connection or transaction speaks: repositories whose one statement differs by dialect ask it here. */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** The transaction a piece of code runs in, and what waits for its commit. */
interface OpenTransaction {
  committed: Array<() => void>;
}

export class DatabaseHandle {
  /** Group commit on SQLite (src/db/group-commit.ts); PostgreSQL runs ordinary transactions. */
  private readonly committer: GroupCommitter | null;
  /** Which transaction of this database the current async context runs in. */
  private readonly current = new AsyncLocalStorage<OpenTransaction>();
  /** transaction() calls not yet finished; at 0 `current` is disabled (see transaction()). */
  private running = 0;

  constructor(
    readonly db: Db,
    readonly dialect: Dialect,
    /** The underlying better-sqlite3 handle (SQLite only): backups, pragmas. */
    readonly sqlite: SQLite.Database | null,
    /** The PostgreSQL schema in use when not the default (tests isolate themselves in one). */
    readonly pgSchema: string | null,
    /** A durable SQLite file's WAL sync and checkpoint worker (none for :memory:, durable: false or PostgreSQL). */
    private readonly durability: WalDurability | null = null,
    onCommitEvent?: (event: CommitEvent) => void,
    /** PostgreSQL: the statements awaited from the server so far (a BEGIN rides with the statement after it). */
    private readonly trips: RoundTrips | null = null,
    /** SQLite: what keeps reads from seeing a commit not yet synced (src/db/synced-snapshot.ts). */
    snapshot: SyncedSnapshot | null = null,
  ) {
    const sync = durability
      ? async () => {
          await durability.wal.sync();
          durability.checkpointer.committed();
        }
      : undefined;
    const beforeBatch = durability ? () => durability.checkpointer.catchUp() : undefined;
    this.committer =
      dialect === 'sqlite' ? new GroupCommitter(db, { sync, beforeBatch, onEvent: onCommitEvent, ...(snapshot ? { snapshot } : {}) }) : null;
  }

  /** Transactions committed and commits used on SQLite (the ratio is group commit's saving); null on PostgreSQL. */
  get groupCommitStats(): { transactions: number; batches: number } | null {
    return this.committer?.stats ?? null;
  }

  /** What the checkpoint worker has done; null where there is none (PostgreSQL, :memory:, durable: false). */
  get checkpointStats(): Readonly<CheckpointStats> | null {
    return this.durability?.checkpointer.stats ?? null;
  }

  /** Round trips made to PostgreSQL so far (tests count a write's); null on SQLite, which runs in process. */
  get pgRoundTrips(): number | null {
    return this.trips?.count ?? null;
  }

  /** True while the calling code runs inside a transaction of this database. */
  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /**
   * Runs fn in a write transaction and resolves once it is durably committed.
   * On SQLite it runs inside a group commit: BEGIN IMMEDIATE takes the write
   * lock up front so a read-then-write (capacity checks) cannot be
   * interleaved by another process, fn gets its own savepoint, and
   * transactions arriving together share one commit and one fsync. On
   * PostgreSQL it is a normal transaction: callers lock the rows they decide
   * on (lock()). Nesting is refused: on SQLite an inner transaction would
   * wait for the batch its caller holds open, for ever.
   */
  /** `alone`: a transaction that writes a great deal runs by itself on SQLite (GroupCommitter.run). */
  async transaction<T>(fn: (trx: Db) => Promise<T>, opts: { alone?: boolean } = {}): Promise<T> {
    if (this.inTransaction) {
      throw new Error('transaction() called inside a transaction: pass the open transaction down instead of starting another');
    }
    const open: OpenTransaction = { committed: [] };
    const run = (trx: Db) => this.current.run(open, () => fn(trx));
    this.running++;
    let result: T;
    try {
      result = this.committer ? await this.committer.run(run, opts) : await this.db.transaction().execute(run);
    } finally {
      // On Node 20 an enabled AsyncLocalStorage keeps a hook on every promise of
      // the process (3 % of a light read's CPU once any write had run,
      // docs/performance.md), so it is enabled only while a transaction is
      // open: run() enables it again, and with none open nothing reads the store.
      if (--this.running === 0) this.current.disable();
    }
    for (const work of open.committed) work();
    return result;
  }

  /**
   * Runs work once the current transaction has committed (never when it rolls
   * back): for what other requests must not see before the data does, such as
   * dropping cached answers. Only inside transaction().
   */
  onCommit(work: () => void): void {
    const open = this.current.getStore();
    if (!open) throw new Error('onCommit() called outside a transaction');
    open.committed.push(work);
  }

  /**
   * Reads a row and holds its lock until trx ends: on PostgreSQL a row lock
   * (ROW_LOCKS), so writers deciding on that row queue one behind the other;
   * SQLite's immediate transaction already holds the database's write lock.
   * With skipLocked a row another transaction holds is passed over
   * (undefined), so workers on several instances never take one row twice.
   */
  async lock<T extends LockedTable>(
    trx: Db,
    table: T,
    id: number,
    opts: { skipLocked?: boolean } = {},
  ): Promise<Selectable<Database[T]> | undefined> {
    if (!isPossibleId(id)) return undefined;
    // One query for every lockable table: each has an integer id.
    const q = trx
      .selectFrom(table as LockedTable as 'bets')
      .selectAll()
      .where('id', '=', id);
    let locked = q;
    if (this.dialect === 'postgres') {
      locked = ROW_LOCKS[table] === 'no key update' ? q.forNoKeyUpdate() : q.forUpdate();
      if (opts.skipLocked) locked = locked.skipLocked();
    }
    return (await locked.executeTakeFirst()) as Selectable<Database[T]> | undefined;
  }

  /**
   * Holds a row's lock until trx ends where there is one to take (PostgreSQL,
   * as lock()); on SQLite the immediate transaction already holds the
   * database's write lock, so nothing is read.
   */
  async holdLock(trx: Db, table: LockedTable, id: number): Promise<void> {
    if (this.dialect === 'postgres') await this.lock(trx, table, id);
  }

  /** Applies pending migrations. On PostgreSQL Kysely holds an advisory lock meanwhile, so instances starting together migrate once. */
  migrate(): Promise<void> {
    return migrateToLatest(this);
  }

  /** Stops the checkpoint worker, then closes the connection (SQLite's last close checkpoints and removes the WAL). */
  async close(): Promise<void> {
    if (this.durability) {
      await this.durability.checkpointer.close();
      await this.durability.wal.close();
    }
    await this.db.destroy();
  }
}

export function openDatabase(config: DatabaseConfig, opts: OpenOptions = {}): DatabaseHandle {
  if (config.dialect === 'sqlite') {
    if (config.path !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(config.path)), { recursive: true });
    const sqlite = new SQLite(config.path);
    const durable = opts.durable !== false;
    // WAL for concurrent readers. NORMAL: COMMIT writes the WAL without
    // syncing it; the group committer syncs it on the thread pool before
    // answering (src/db/wal-sync.ts), so an acknowledged commit survives power
    // loss without the event loop waiting for the disk. Where WAL cannot be
    // had (:memory:, a file system without shared memory) there is no WAL
    // to sync: FULL, and COMMIT syncs on the event loop.
    const wal = sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    sqlite.pragma(`synchronous = ${!durable ? 'OFF' : wal ? 'NORMAL' : 'FULL'}`);
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    // 16 MiB of page cache (SQLite's default is 2 MiB): a write touches a page in
    // each of the bets table's indexes, and a page read from the file is a
    // system call. 32 MiB cost 16 MiB of resident memory once filled (the
    // record's publication fills it at start) and made no difference to the
    // benchmark's reads or writes (docs/performance.md, Memory).
    sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
    // Every group-commit member runs in a savepoint, and SQLite keeps a
    // savepoint's (and a multi-row statement's) undo pages in a temporary
    // file unless told otherwise.
    sqlite.pragma('temp_store = MEMORY');
    const durability = durable && wal && !isInMemory(config.path) ? walDurability(sqlite, path.resolve(config.path), opts.checkpoint) : null;
    const schema = { generation: 0 };
    const reader = wal && !isInMemory(config.path) && opts.reader !== false ? openReader(config.path) : null;
    const snapshot = new SyncedSnapshot(reader);
    const dialect = new ReadWriteSqliteDialect({
      writer: withStatementCache(sqlite, schema),
      reader: reader ? withStatementCache(reader, schema) : null,
      durable: durability
        ? {
            inTransaction: () => sqlite.inTransaction,
            sync: () => durability.wal.sync(),
            syncedByCaller: GROUP_COMMIT,
            nestedRelease: MEMBER_RELEASE,
          }
        : null,
      snapshot,
    });
    const db = new Kysely<Database>({ dialect, ...queryLog(opts) });
    return new DatabaseHandle(db, 'sqlite', sqlite, null, durability, opts.onCommitEvent, null, snapshot);
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: opts.pgPoolSize ?? config.poolSize ?? DEFAULT_POOL_SIZE,
    // For BEGIN only (src/db/pipelined-begin.ts): every other statement is awaited before the next is sent.
    pipeline: true,
    ...pgSessionOptions(opts),
  });
  const trips: RoundTrips = { count: 0 };
  const clients = withPipelinedBegin(withNamedStatements(pool, new NamedStatements()), trips);
  const db = new Kysely<Database>({ dialect: new SearchPathDialect(new PostgresDialect({ pool: clients })), ...queryLog(opts) });
  return new DatabaseHandle(db, 'postgres', null, opts.pgSchema ?? null, null, undefined, trips);
}

/**
 * The read connection: the same file, made unable to write (query_only), with
 * its own page cache. A read runs in a snapshot of its own, so it never waits
 * for the writer's transaction (src/db/sqlite-driver.ts).
 */
function openReader(file: string): SQLite.Database {
  const reader = new SQLite(file);
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  reader.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  reader.pragma('temp_store = MEMORY');
  return reader;
}

/** ':memory:' and '' (a private temporary database): no file to sync. */
function isInMemory(file: string): boolean {
  return file === '' || file === ':memory:' || file.startsWith('file::memory:');
}

function walDurability(sqlite: SQLite.Database, file: string, checkpoint: CheckpointOptions = DEFAULT_CHECKPOINT): WalDurability {
  // Checkpoints run in the worker: SQLite's automatic one would run, and
  // fsync the database file, inside a request's COMMIT.
  sqlite.pragma('wal_autocheckpoint = 0');
  // Once the WAL is written from its top again its file is cut back to this,
  // so its size tells how much was written since (see src/db/checkpointer.ts).
  sqlite.pragma(`journal_size_limit = ${Math.floor(checkpoint.walBytes / 2)}`);
  const wal = new WalSync(`${file}-wal`);
  // Should the worker fail, SQLite's own checkpoints (on the event loop) keep the WAL from growing without end.
  const checkpointer = new Checkpointer(
    file,
    () => wal.size(),
    () => sqlite.pragma('wal_autocheckpoint = 1000'),
    checkpoint,
  );
  return { wal, checkpointer };
}

/** The settings every connection of the pool starts with (libpq's `options`). */
function pgSessionOptions(opts: OpenOptions): { options?: string } {
  const settings = [...(opts.pgSchema ? [`-c search_path=${opts.pgSchema}`] : []), ...(opts.durable === false ? ['-c synchronous_commit=off'] : [])];
  return settings.length > 0 ? { options: settings.join(' ') } : {};
}

function queryLog(opts: OpenOptions): { log?: (event: LogEvent) => void } {
  const { onQuery } = opts;
  return onQuery ? { log: (event) => onQuery(event.query.sql) } : {};
}

/** Applies pending migrations (see DatabaseHandle.migrate). */
export async function migrateToLatest(handle: Pick<DatabaseHandle, 'db' | 'pgSchema'>): Promise<void> {
  const migrator = new Migrator({
    db: handle.db as unknown as Kysely<unknown>,
    // Kysely looks for its bookkeeping tables across schemas; name ours.
    ...(handle.pgSchema ? { migrationTableSchema: handle.pgSchema } : {}),
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** True when the database answers within timeoutMs (an unreachable server must not hang the health check). */
export async function pingDatabase(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.execute(db).then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
