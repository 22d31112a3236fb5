// Statements of one transaction that do not depend on each other's results,
// sent as one round trip on PostgreSQL: the others ride as data-modifying
// CTEs on the first, `with w1 as (<second>), w2 as (<third>) <first>`. Every
// sub-statement runs exactly once and to completion, on one snapshot, so
// only statements that neither read what another of them writes nor write a
// row another of them writes go together. On SQLite (in process, no round
// trips, and no data-modifying CTEs) they run one after another, in order.
import { CompiledQuery } from 'kysely';
import { type Db, dialectOf } from './database.js';

/** Runs `first` and `rest` in the caller's transaction and answers the rows of `first`. */
export async function runTogether<R>(db: Db, first: CompiledQuery<R>, rest: readonly CompiledQuery[]): Promise<R[]> {
  if (rest.length === 0 || dialectOf(db) !== 'postgres') {
    const { rows } = await db.executeQuery(first);
    for (const q of rest) await db.executeQuery(q);
    return rows;
  }
  const parts: string[] = [];
  const parameters: unknown[] = [];
  const add = (q: CompiledQuery) => {
    if (/^\s*with\b/i.test(q.sql)) throw new Error('runTogether: a statement with its own WITH cannot ride in another');
    const text = renumbered(q.sql, parameters.length);
    parameters.push(...q.parameters);
    return text;
  };
  for (const [i, q] of rest.entries()) parts.push(`w${i + 1} as (${add(q)})`);
  const main = add(first);
  const { rows } = await db.executeQuery<R>(CompiledQuery.raw(`with ${parts.join(', ')} ${main}`, parameters));
  return rows;
}

/**
 * Shifts PostgreSQL's placeholders ($1, $2…) of a statement by `offset`,
 * leaving quoted text (string literals, quoted identifiers) as it is.
 */
export function renumbered(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g, (match, n: string | undefined) =>
    n === undefined ? match : `$${Number(n) + offset}`,
  );
}
