// The published quotes: every quote the price service hands out, by ticker and
// instant. A committed price or a settlement price is the first row at or
// after its instant.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';

export interface StoredQuote {
  price: number;
  at: number;
}

const appendQuery = prepared((db, p: { ticker: string; at: number; price: number }) =>
  db
    .insertInto('quotes')
    .values({ ticker: p.ticker, published_at: p.at, price: p.price })
    .onConflict((oc) => oc.columns(['ticker', 'published_at']).doNothing()),
);

/** Keeps a published quote; a second quote of the same instant (another instance) keeps the first. */
export async function appendQuote(db: Db, ticker: string, quote: StoredQuote): Promise<void> {
  await appendQuery(db, { ticker, at: quote.at, price: quote.price });
}

/** Rows of one insert: 1,500 parameters, far below either dialect's limit. */
const APPEND_ROWS_PER_STATEMENT = 500;

/**
 * Keeps many published quotes, one statement for each 500 (one for a pass of
 * the trigger engine's instruments): a quote of an instant already kept (the
 * same instant twice here, or another instance's) keeps the first.
 */
export async function appendQuotes(db: Db, quotes: ReadonlyArray<StoredQuote & { ticker: string }>): Promise<void> {
  // One quote (a price request's own publication) takes the statement compiled once, not one built for this call.
  if (quotes.length === 1) return appendQuote(db, quotes[0]!.ticker, quotes[0]!);
  for (let i = 0; i < quotes.length; i += APPEND_ROWS_PER_STATEMENT) {
    const rows = quotes.slice(i, i + APPEND_ROWS_PER_STATEMENT).map((q) => ({ ticker: q.ticker, published_at: q.at, price: q.price }));
    await db
      .insertInto('quotes')
      .values(rows)
      .onConflict((oc) => oc.columns(['ticker', 'published_at']).doNothing())
      .execute();
  }
}

const firstAtOrAfterQuery = prepared((db, p: { ticker: string; at: number }) =>
  db
    .selectFrom('quotes')
    .select(['price', 'published_at'])
    .where('ticker', '=', p.ticker)
    .where('published_at', '>=', p.at)
    .orderBy('published_at')
    .limit(1),
);

/** The first quote of `ticker` published at or after `at`, or null when none has been yet. */
export async function firstQuoteAtOrAfter(db: Db, ticker: string, at: number): Promise<StoredQuote | null> {
  const [row] = await firstAtOrAfterQuery(db, { ticker, at });
  return row ? { price: Number(row.price), at: Number(row.published_at) } : null;
}

/** Drops quotes published before `before`; the caller keeps every instant still pending. */
/**
 * Deletes the oldest quotes published before `before`: `limit` of them, and
 * the others of the last one's instant (published_at's index finds the
 * boundary). Fewer than `limit` deleted: none is left before `before`.
 */
export async function pruneQuotes(db: Db, before: number, limit: number): Promise<number> {
  const boundary = await db
    .selectFrom('quotes')
    .select('published_at')
    .where('published_at', '<', before)
    .orderBy('published_at')
    .limit(1)
    .offset(limit - 1)
    .executeTakeFirst();
  const upTo = boundary ? db.deleteFrom('quotes').where('published_at', '<=', boundary.published_at) : db.deleteFrom('quotes');
  const result = await upTo.where('published_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Published quotes of `ticker` from `from` to `until` (both inclusive), oldest first, at most `limit`: what a trigger evaluates. */
export async function quotesInRange(db: Db, ticker: string, from: number, until: number, limit?: number): Promise<StoredQuote[]> {
  let query = db
    .selectFrom('quotes')
    .select(['price', 'published_at'])
    .where('ticker', '=', ticker)
    .where('published_at', '>=', from)
    .where('published_at', '<=', until)
    .orderBy('published_at');
  if (limit !== undefined) query = query.limit(limit);
  const rows = await query.execute();
  return rows.map((r) => ({ price: Number(r.price), at: Number(r.published_at) }));
}

/** The quotes of `ticker` published after `after` (exclusive; instants are whole milliseconds) up to `until` (inclusive), in order of instant. */
export function quotesBetween(db: Db, ticker: string, after: number, until: number): Promise<StoredQuote[]> {
  return quotesInRange(db, ticker, after + 1, until);
}
