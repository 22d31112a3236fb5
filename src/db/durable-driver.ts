// Writes made outside the group committer are made durable too. The database
// runs at synchronous=NORMAL, so a COMMIT no longer syncs the WAL itself: the
// group committer syncs after its own commits (src/db/group-commit.ts), and
// this driver does the same for every other statement that leaves the
// connection outside a transaction after writing: a write in autocommit
// (db.insertInto(…) outside transaction()), the COMMIT of a Kysely
// transaction (migrations), the release of an outermost savepoint. The
// statement's caller gets its result after the sync; the connection is held
// meanwhile, so no other query sees the write before it is on disk.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';

export interface DurableSqlite {
  /** True while the connection is inside a transaction (better-sqlite3's inTransaction). */
  inTransaction(): boolean;
  /** Makes what has been committed durable (the WAL's sync). */
  sync(): Promise<void>;
  /** A statement this driver leaves alone: the group committer syncs after it. */
  syncedByCaller: CompiledQuery;
}

// Raw statements that commit nothing: reads, and ending a transaction by undoing it.
const COMMITS_NOTHING = /^\s*(select|explain|rollback)\b|^\s*pragma\s+\w+\s*;?\s*$/i;

function commitsNothing(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) || (RawNode.is(query.query) && COMMITS_NOTHING.test(query.sql));
}

class DurableConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly durable: DurableSqlite,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(query);
    if (query !== this.durable.syncedByCaller && !this.durable.inTransaction() && !commitsNothing(query)) await this.durable.sync();
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    // Kysely streams only selects on SQLite.
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class DurableDriver implements Driver {
  private connection: DurableConnection | null = null;

  constructor(
    private readonly inner: Driver,
    private readonly durable: DurableSqlite,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await this.inner.acquireConnection();
    // SQLite has one connection: one wrapper serves.
    this.connection ??= new DurableConnection(conn, this.durable);
    return this.connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's SQLite dialect, with a WAL sync after every statement that commits on its own (see the top of this file). */
export class DurableSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly durable: DurableSqlite,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new DurableDriver(super.createDriver(), this.durable);
  }
}
