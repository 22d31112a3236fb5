// Kysely's driver for SQLite: two connections to one file in WAL mode, one
// that writes and one that reads, so that a read never waits for a write
// transaction (a group-commit batch holds the writer for tens of milliseconds
// under load) nor for the sync of a commit: while one is pending, reads see
// the state before it (src/db/synced-snapshot.ts).
//
// Each query Kysely runs outside a transaction takes a lease: a plain read
// (a SELECT) runs on the reader at once; anything else takes
// the writer, which one lease holds at a time (a mutex, as Kysely's own
// driver has), and every later statement of that lease runs there too, so a
// transaction reads its own writes. Where a second connection cannot share
// the file (:memory:, or no WAL), reads take the writer as well.
//
// Writes made outside the group committer are made durable too. The database
// runs at synchronous=NORMAL, so a COMMIT no longer syncs the WAL itself: the
// group committer syncs after its own commits (src/db/group-commit.ts), and
// this driver does the same for every other statement that leaves the writer
// outside a transaction after writing: a write in autocommit
// (db.insertInto(…) outside transaction()), the COMMIT of a Kysely
// transaction (migrations), the release of an outermost savepoint. The
// statement's caller gets its result after the sync; the writer and the
// reader's snapshot are held meanwhile, so no other query sees the write
// before it is on disk (src/db/synced-snapshot.ts).
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { SyncedSnapshot } from './synced-snapshot.js';

export interface DurableSqlite {
  /** True while the writer is inside a transaction (better-sqlite3's inTransaction). */
  inTransaction(): boolean;
  /** Makes what has been committed durable (the WAL's sync). */
  sync(): Promise<void>;
  /** A statement this driver leaves alone: the group committer syncs after it. */
  syncedByCaller: CompiledQuery;
  /** A RELEASE known never to end its transaction (a group-commit member's): no snapshot is held for it. */
  nestedRelease: CompiledQuery;
}

export interface SqliteConnections {
  writer: SqliteDatabase;
  /** A second connection to the same file, for reads; null where there can be none. */
  reader: SqliteDatabase | null;
  /** Where commits are synced after the fact (a durable WAL file); null where COMMIT is as durable as wanted. */
  durable: DurableSqlite | null;
  /** Held from each COMMIT until its sync has returned: reads meanwhile see the state before it. */
  snapshot: SyncedSnapshot;
}

// Raw statements that read only.
const READS = /^\s*select\b/i;
// Raw statements that commit nothing: reads, and ending a transaction by undoing it.
const COMMITS_NOTHING = /^\s*(select|explain|rollback)\b|^\s*pragma\s+\w+\s*;?\s*$/i;
// Raw statements that open a transaction rather than commit, outside one.
const BEGINS = /^\s*(begin|savepoint)\b/i;
// Raw statements that may end the transaction they run in: RELEASE ends it when its savepoint began it.
const ENDS = /^\s*(commit|end|release)\b/i;

function readsOnly(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) || (RawNode.is(query.query) && READS.test(query.sql));
}

function commitsNothing(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) || (RawNode.is(query.query) && COMMITS_NOTHING.test(query.sql));
}

/**
 * Whether the statement, run on the writer now, may leave a commit behind, told
 * before it runs: a write outside a transaction, or the end of one. Decided
 * before, because the reads' snapshot must be held before the commit is visible.
 * `quiet`: commitsNothing(query), worked out once by the caller.
 */
function mayCommit(query: CompiledQuery, durable: DurableSqlite, quiet: boolean): boolean {
  if (quiet || query === durable.syncedByCaller || query === durable.nestedRelease) return false;
  const raw = RawNode.is(query.query);
  if (durable.inTransaction()) return raw && ENDS.test(query.sql);
  return !(raw && BEGINS.test(query.sql));
}

/** Runs statements on one connection. */
function execute<R>(db: SqliteDatabase, query: CompiledQuery): QueryResult<R> {
  const stmt = db.prepare(query.sql);
  if (stmt.reader) return { rows: stmt.all(query.parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(query.parameters);
  return {
    numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
    insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
    rows: [],
  };
}

class WriterMutex {
  private held: Promise<void> | null = null;
  private release: (() => void) | null = null;

  async lock(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise<void>((resolve) => {
      this.release = resolve;
    });
  }

  unlock(): void {
    const release = this.release;
    this.held = null;
    this.release = null;
    release?.();
  }
}

/** One query's or one transaction's use of the connections (see the top of this file). */
class Lease implements DatabaseConnection {
  /** Holds the writer from its first statement that is not a plain read. */
  holdsWriter = false;

  constructor(private readonly driver: ReadWriteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { reader, writer, durable, snapshot } = this.driver.connections;
    if (!this.holdsWriter && reader && readsOnly(query)) return execute<R>(reader, query);
    if (!this.holdsWriter) {
      await this.driver.writerMutex.lock();
      this.holdsWriter = true;
    }
    const quiet = commitsNothing(query);
    const held = durable !== null && mayCommit(query, durable, quiet);
    if (held) snapshot.hold();
    let result: QueryResult<R>;
    try {
      result = execute<R>(writer, query);
    } catch (err) {
      if (held) snapshot.release();
      throw err;
    }
    if (durable && !quiet && query !== durable.syncedByCaller && !durable.inTransaction()) {
      // Committed: synced before anyone (this caller included) sees it. Were it not held (a statement mayCommit
      // did not foresee), it is still made durable before its caller hears of it.
      try {
        await durable.sync();
      } finally {
        if (held) snapshot.release();
      }
    } else if (held) {
      snapshot.release();
    }
    return result;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('the SQLite driver streams only select queries');
    const { reader, writer } = this.driver.connections;
    let db = writer;
    if (!this.holdsWriter && reader) {
      db = reader;
    } else if (!this.holdsWriter) {
      await this.driver.writerMutex.lock();
      this.holdsWriter = true;
    }
    // Read whole before the first yield: an iterator left open across awaits would keep the reader busy, and
    // SyncedSnapshot.hold() could not begin its transaction there.
    for (const row of db.prepare(query.sql).all(query.parameters)) yield { rows: [row as R] };
  }
}

class ReadWriteDriver implements Driver {
  readonly writerMutex = new WriterMutex();

  constructor(readonly connections: SqliteConnections) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoted(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if ((connection as Lease).holdsWriter) this.writerMutex.unlock();
  }

  async destroy(): Promise<void> {
    this.connections.reader?.close();
    this.connections.writer.close();
  }
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** SQLite through ReadWriteDriver (see the top of this file). */
export class ReadWriteSqliteDialect implements Dialect {
  constructor(private readonly connections: SqliteConnections) {}

  createDriver(): Driver {
    return new ReadWriteDriver(this.connections);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
