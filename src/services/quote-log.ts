// The price service's log of published quotes, kept in the database's quotes
// table. A quote is logged before it is shown, so each caller waits for the
// commit that holds its quote; quotes published in the same turn of the event
// loop (the trigger engine publishes every watched instrument's at once, 112
// in the full data) share one transaction and one insert. One at a time they
// cost PostgreSQL a transaction, a pool connection and a WAL flush each, and
// SQLite a savepoint each in the group commit.
import type { DatabaseHandle } from '../db/database.js';
import type { PublishedQuote, QuoteLog } from '../providers/prices/types.js';
import { appendQuotes, firstQuoteAtOrAfter } from '../repositories/quotes.js';

interface Waiting {
  ticker: string;
  quote: PublishedQuote;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** What the log tells of its writes (tests count them). */
export interface QuoteLogStats {
  /** Transactions written, and the quotes they held. */
  writes: number;
  quotes: number;
}

export class DatabaseQuoteLog implements QuoteLog {
  private waiting: Waiting[] = [];
  readonly stats: QuoteLogStats = { writes: 0, quotes: 0 };

  constructor(private readonly database: Pick<DatabaseHandle, 'db' | 'transaction'>) {}

  append(ticker: string, quote: PublishedQuote): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ ticker, quote, resolve, reject });
      // Written once this turn's other publications have joined.
      if (this.waiting.length === 1) setImmediate(() => void this.write());
    });
  }

  firstAtOrAfter(ticker: string, at: number): Promise<PublishedQuote | null> {
    return firstQuoteAtOrAfter(this.database.db, ticker, at);
  }

  private async write(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    const quotes = batch.map((w) => ({ ticker: w.ticker, ...w.quote }));
    try {
      await this.database.transaction((trx) => appendQuotes(trx, quotes));
    } catch (err) {
      // Each caller's publication fails as it would have alone: the price service reports it and still shows the quote.
      for (const w of batch) w.reject(err);
      return;
    }
    this.stats.writes += 1;
    this.stats.quotes += batch.length;
    for (const w of batch) w.resolve();
  }
}
