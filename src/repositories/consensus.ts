// The open holders of instruments with their ranked alpha sums (the consensus
// weights), and the stored calls of each instrument's closes.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ConsensusCall, Holder } from '../domain/consensus.js';
import type { Period } from '../domain/rankings.js';

/**
 * Every live user holding an open bet on each of `tickers` (every ticker when
 * null), one row per ticker, user and side (bets_open_ticker_idx), with their
 * ranked alpha sums over the window (their user_window_stats row, read by its
 * key; zeros without one).
 */
export async function openHolders(db: Db, tickers: readonly string[] | null, period: Period): Promise<Map<string, Holder[]>> {
  let open = db.selectFrom('bets').where('status', '=', sql.lit('OPEN'));
  if (tickers !== null) {
    if (tickers.length === 0) return new Map();
    open = open.where('ticker', 'in', tickers);
  }
  const holders = open.select(['ticker', 'direction', 'user_id']).distinct();
  const rows = await db
    .selectFrom(holders.as('h'))
    .innerJoin('users', 'users.id', 'h.user_id')
    .leftJoin('user_window_stats as w', (j) => j.onRef('w.user_id', '=', 'h.user_id').on('w.period', '=', period))
    .select(['h.ticker', 'h.direction', 'h.user_id', 'w.ranked_alpha_count as n', 'w.ranked_alpha_sum as sum', 'w.ranked_alpha_sq_sum as sum_sq'])
    .where('users.deleted_at', 'is', null)
    .execute();
  const byTicker = new Map<string, Holder[]>();
  for (const r of rows) {
    const list = byTicker.get(r.ticker) ?? [];
    byTicker.set(r.ticker, list);
    list.push({ userId: Number(r.user_id), direction: r.direction, n: Number(r.n ?? 0), sum: Number(r.sum ?? 0), sumSq: Number(r.sum_sq ?? 0) });
  }
  return byTicker;
}

export interface NewCall {
  ticker: string;
  closeAt: number;
  call: ConsensusCall;
  holders: number;
  longWeight: number | null;
  shortWeight: number | null;
  closePrice: number;
  nextCloseAt: number;
}

/** Stores a close's call; a close already stored (another run got there first) keeps its first call. */
export async function insertCall(db: Db, c: NewCall): Promise<void> {
  await db
    .insertInto('consensus_calls')
    .values({
      ticker: c.ticker,
      close_at: c.closeAt,
      call: c.call,
      holders: c.holders,
      long_weight: c.longWeight,
      short_weight: c.shortWeight,
      close_price: c.closePrice,
      next_close_at: c.nextCloseAt,
      next_price: null,
    })
    .onConflict((oc) => oc.columns(['ticker', 'close_at']).doNothing())
    .execute();
}

/** Which of `tickers` already have a call stored for closeAt. */
export async function tickersWithCall(db: Db, tickers: readonly string[], closeAt: number): Promise<Set<string>> {
  if (tickers.length === 0) return new Set();
  const rows = await db.selectFrom('consensus_calls').select('ticker').where('close_at', '=', closeAt).where('ticker', 'in', tickers).execute();
  return new Set(rows.map((r) => r.ticker));
}

/** Calls whose next close has passed by `now` and is not priced yet, oldest first (consensus_calls_unscored_idx). */
export async function unscoredCalls(db: Db, now: number, limit: number): Promise<Array<{ ticker: string; close_at: number; next_close_at: number }>> {
  const rows = await db
    .selectFrom('consensus_calls')
    .select(['ticker', 'close_at', 'next_close_at'])
    .where('next_price', 'is', null)
    .where('next_close_at', '<=', now)
    .orderBy('next_close_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ticker: r.ticker, close_at: Number(r.close_at), next_close_at: Number(r.next_close_at) }));
}

export async function setNextPrice(db: Db, ticker: string, closeAt: number, price: number): Promise<void> {
  await db.updateTable('consensus_calls').set({ next_price: price }).where('ticker', '=', ticker).where('close_at', '=', closeAt).execute();
}

export interface CallRow {
  ticker: string;
  close_at: number;
  call: ConsensusCall;
  holders: number;
  close_price: number;
  next_close_at: number;
  next_price: number | null;
}

const toCall = (r: Record<keyof CallRow, unknown>): CallRow => ({
  ticker: String(r.ticker),
  close_at: Number(r.close_at),
  call: r.call as ConsensusCall,
  holders: Number(r.holders),
  close_price: Number(r.close_price),
  next_close_at: Number(r.next_close_at),
  next_price: r.next_price === null ? null : Number(r.next_price),
});

/** Every stored call of the tickers (every ticker when null), newest first per ticker. */
export async function callsOf(db: Db, tickers: readonly string[] | null): Promise<CallRow[]> {
  let q = db
    .selectFrom('consensus_calls')
    .select(['ticker', 'close_at', 'call', 'holders', 'close_price', 'next_close_at', 'next_price'])
    .orderBy('ticker')
    .orderBy('close_at', 'desc');
  if (tickers !== null) {
    if (tickers.length === 0) return [];
    q = q.where('ticker', 'in', tickers);
  }
  return (await q.execute()).map(toCall);
}
