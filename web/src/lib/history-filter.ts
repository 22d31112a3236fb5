// The history's filters (issue 36, item 14): by status and by ticker, over
// the bets the page already shows (SPEC's /history takes only limit and
// offset, so filtering never asks the API for more). Pure, so Node tests load it.

export type StatusFilter = 'ALL' | 'CLOSED' | 'CANCELLED';

export const STATUS_FILTERS: readonly [StatusFilter, string][] = [
  ['ALL', 'All'],
  ['CLOSED', 'Closed'],
  ['CANCELLED', 'Cancelled'],
];

/** The bets that pass: the status chosen (a bet without one is a closed one), and a ticker containing the text typed, in any case. */
export function filterBets<B extends { ticker: string; status?: string }>(bets: readonly B[], status: StatusFilter, ticker: string): B[] {
  const needle = ticker.trim().toUpperCase();
  return bets.filter((b) => (status === 'ALL' || (b.status ?? 'CLOSED') === status) && (needle === '' || b.ticker.toUpperCase().includes(needle)));
}

/** Pages of `limit` rows over `total` rows, and the last page's offset the API answers (SPEC bounds offsets at `maxOffset`). */
export function pageCount(total: number, limit: number, maxOffset: number): { pages: number; lastOffset: number } {
  const lastOffset = Math.min(Math.max(0, Math.ceil(total / limit) - 1) * limit, Math.floor(maxOffset / limit) * limit);
  return { pages: lastOffset / limit + 1, lastOffset };
}
