// The bets table's columns, listed once: the insert of a new bet, the league
// queries and the benchmark's bulk load name them from here, and the type
// check fails while a column of BetsTable is missing.
import type { BetRow } from './tables.js';

/** Every column of a bet but its id, in the table's order. */
export const BET_COLUMNS = [
  'user_id',
  'ticker',
  'direction',
  'status',
  'entry_price',
  'exit_price',
  'percentage_gain',
  'target_date',
  'settle_at',
  'opened_at',
  'closed_at',
  'last_event_at',
  'close_reason',
  'source_bet_id',
  'source_kind',
  'benchmark_entry',
  'benchmark_exit',
  'committed_price',
  'benchmark_committed',
  'ranked_gain',
  'unranked_reason',
  'history_pos',
  'view_json',
] as const satisfies ReadonlyArray<keyof BetRow>;

export type BetColumn = (typeof BET_COLUMNS)[number];

type Unlisted = Exclude<keyof BetRow, BetColumn | 'id'>;
/** Names the first column BET_COLUMNS lacks, in the type error, until it is added. */
export type EveryBetColumnListed = [Unlisted] extends [never] ? true : { missing: Unlisted };
true satisfies EveryBetColumnListed;

/** The columns but `except`, qualified by a table alias (`b.ticker`), for queries that join bets. */
export function betColumnsOf<A extends string, X extends BetColumn = never>(alias: A, except: readonly X[] = []) {
  const skipped = new Set<BetColumn>(except);
  return BET_COLUMNS.filter((c): c is Exclude<BetColumn, X> => !skipped.has(c)).map((c) => `${alias}.${c}` as const);
}

/**
 * The columns a bet's view reads. Pages of many bets select these alone:
 * SQLite hands over each column of each row one by one (about 100 ns each),
 * so a page of 100 bets reads half as many values as with every column. The
 * owner is not among them: a history page's is the one asked for, and the
 * feed, whose bets have many owners, selects it besides.
 */
export const BET_VIEW_COLUMNS = [
  'id',
  'ticker',
  'direction',
  'status',
  'entry_price',
  'exit_price',
  'percentage_gain',
  'opened_at',
  'closed_at',
  'close_reason',
] as const satisfies readonly (keyof BetRow)[];
export type BetViewRow = Pick<BetRow, (typeof BET_VIEW_COLUMNS)[number]>;
