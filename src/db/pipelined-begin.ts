// A transaction's BEGIN costs a round trip of its own: Kysely waits for its
// answer before it sends the first statement. The pool's clients run in the
// pg driver's pipeline mode (queries are written without waiting for the
// answers before them), and BEGIN is sent at once but answered to Kysely
// only with the statement after it, which is written right behind it: the
// two share one round trip. A failed BEGIN fails that statement with its own
// error, as it would have failed alone. Only BEGIN is sent ahead: every other
// statement's answer decides what is sent next (and COMMIT's decides whether
// the transaction happened), so they are awaited as before.
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** Counts what is awaited from the server: every statement but a BEGIN sent ahead. */
export interface RoundTrips {
  count: number;
}

const BEGIN = /^\s*begin\s*$/i;

/** A pool whose clients send BEGIN together with the statement after it (the pg pool must be created with `pipeline: true`). */
export function withPipelinedBegin(pool: PostgresPool, trips: RoundTrips): PostgresPool {
  return {
    end: () => pool.end(),
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect();
      // A BEGIN written to the server whose answer the next statement waits for.
      let begun: Promise<unknown> | null = null;
      function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query<R>(textOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): unknown {
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never);
        if (begun === null && BEGIN.test(textOrCursor) && (parameters ?? []).length === 0) {
          begun = client.query(textOrCursor, []);
          // Answered with the next statement; an unhandled rejection meanwhile is not a crash.
          begun.catch(() => undefined);
          return Promise.resolve({ command: 'BEGIN', rowCount: null, rows: [] });
        }
        trips.count += 1;
        const sent = client.query<R>(textOrCursor, parameters ?? []);
        if (begun === null) return sent;
        const first = begun;
        begun = null;
        return first.then(
          () => sent,
          (error: unknown) => {
            sent.catch(() => undefined);
            throw error;
          },
        );
      }
      // Kysely ends every transaction it begins (COMMIT or ROLLBACK, each awaited), so no BEGIN is pending here.
      return { query, release: () => client.release() } as PostgresPoolClient;
    },
  };
}
