// Kysely sends every PostgreSQL query unnamed, so the server parses and plans
// the same few hundred statement texts again on every call. Naming a statement
// (the pg driver's `name`) makes each connection parse it once and then only
// bind and execute it. The names are given to the first `limit` distinct texts
// of data statements with parameters; beyond that (variable-length lists, ad
// hoc queries) statements stay unnamed, so what each connection keeps
// prepared is bounded.
import { createHash } from 'node:crypto';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

export const NAMED_STATEMENT_LIMIT = 1000;

const DATA_STATEMENT = /^\s*(?:select|insert|update|delete|with)\b/i;

export class NamedStatements {
  private readonly names = new Map<string, string>();

  constructor(private readonly limit = NAMED_STATEMENT_LIMIT) {}

  /** The name a statement text runs under, or null when it runs unnamed. */
  nameOf(text: string, parameterCount: number): string | null {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    if (parameterCount === 0 || this.names.size >= this.limit || !DATA_STATEMENT.test(text)) return null;
    const name = `k_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

/** A pool for Kysely's PostgresDialect whose clients run known statement texts as named statements. */
export function withNamedStatements(pool: pg.Pool, statements: NamedStatements): PostgresPool {
  return {
    end: () => pool.end(),
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect();
      function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query<R>(textOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): unknown {
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never);
        const values = [...(parameters ?? [])];
        const name = statements.nameOf(textOrCursor, values.length);
        const config = name === null ? { text: textOrCursor, values } : { name, text: textOrCursor, values };
        // The driver's callback form, in a promise of our own: under load its
        // promise form left about 30 KB a request of each answer's rows (a
        // 100-row page) to outlive V8's young collections, so a busy service ran
        // a full collection every second (docs/performance.md, PostgreSQL).
        return new Promise((resolve, reject) => {
          client.query(config, (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
        });
      }
      return { query, release: () => client.release() } as PostgresPoolClient;
    },
  };
}
