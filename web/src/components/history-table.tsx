import type { ClosedBet } from '../api/client';
import { formatDateTime } from '../lib/format';
import { Fragment } from 'react';
import { StatusTag } from './gain';
import { ThesisView } from './thesis';
import { BetCells, type Column, GainCell, PriceCell, TableHead } from './table-cells';

const COLUMNS: readonly Column[] = [['Ticker'], ['Direction'], ['Status'], ['Entry', true], ['Exit', true], ['Gain', true], ['Closed']];

/** `own`: the reader's own history (a thesis withheld from others is explained as such). */
export function HistoryTable({ bets, testId, own = false }: { bets: ClosedBet[]; testId?: string; own?: boolean }) {
  return (
    <table className="table responsive" data-testid={testId}>
      <TableHead columns={COLUMNS} />
      <tbody>
        {bets.map((b) => (
          <Fragment key={b.id}>
            <tr>
              <BetCells bet={b} />
              <td data-label="Status">
                <StatusTag status={b.status ?? 'CLOSED'} />
              </td>
              <PriceCell column="Entry" price={b.entry_price} />
              <PriceCell column="Exit" price={b.exit_price} />
              <GainCell column="Gain" gain={b.percentage_gain} />
              <td data-label="Closed">{formatDateTime(b.exit_date)}</td>
            </tr>
            {b.thesis_state !== undefined && (
              <tr className="thesis-row">
                <td data-label="Thesis" colSpan={COLUMNS.length}>
                  <ThesisView bet={b} own={own} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** Previous / next over limit+offset pages. */
export function Pager({
  offset,
  limit,
  total,
  count,
  onChange,
  labels = ['← Newer', 'Older →'],
}: {
  offset: number;
  limit: number;
  total: number | null;
  count: number;
  onChange: (offset: number) => void;
  /** The buttons' words: back toward the first page, on to the next. */
  labels?: readonly [string, string];
}) {
  const hasNext = total !== null ? offset + limit < total : count === limit;
  if (offset === 0 && !hasNext) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        {labels[0]}
      </button>
      <span className="muted num">
        {offset + 1}–{offset + count}
        {total !== null ? ` of ${total}` : ''}
      </span>
      <button type="button" className="btn btn-small" disabled={!hasNext} onClick={() => onChange(offset + limit)}>
        {labels[1]}
      </button>
    </nav>
  );
}
