// Query plans, to show that reads go through indexes: EXPLAIN QUERY PLAN on
// SQLite, EXPLAIN on PostgreSQL.
import { type Compilable, CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import type { Db, DatabaseHandle } from '../../src/db/database.js';

export interface ExplainOptions {
  /**
   * PostgreSQL only: forbid sequential scans. Test tables hold a few rows, and
   * for those PostgreSQL rightly prefers reading the table; turning scans off
   * shows which index it uses once the table is large enough to matter.
   */
  noSeqScan?: boolean;
}

export async function explain(handle: DatabaseHandle, query: Compilable | CompiledQuery, opts: ExplainOptions = {}): Promise<string> {
  const c = 'compile' in query ? query.compile() : query;
  if (handle.dialect === 'sqlite') {
    if (!handle.sqlite) throw new Error('explain: no SQLite handle');
    const rows = handle.sqlite.prepare(`explain query plan ${c.sql}`).all(...(c.parameters as unknown[])) as Array<{ detail: string }>;
    return rows.map((r) => r.detail).join('\n');
  }
  return handle.db.transaction().execute(async (trx) => {
    if (opts.noSeqScan) await sql`set local enable_seqscan = off`.execute(trx);
    const res = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${c.sql}`, [...c.parameters]));
    return res.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

/** The queries fn runs, compiled: to explain what a repository function really executes. */
export async function capturedQueries(db: Db, fn: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  // Plugins also see the nodes of subqueries as they are built; keep only the
  // nodes that were executed (those that produce a result).
  const built = new Map<string, RootOperationNode>();
  const executed: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: (args) => {
      built.set(args.queryId.queryId, args.node);
      return args.node;
    },
    transformResult: async (args) => {
      const node = built.get(args.queryId.queryId);
      if (node) executed.push(node);
      return args.result;
    },
  };
  await fn(db.withPlugin(capture));
  return executed.map((node, i) => db.getExecutor().compileQuery(node, { queryId: `captured-${i}` }));
}
