import { Link } from 'react-router-dom';
import type { ClosedBet } from '../api/client';
import { formatDateTime, formatPrice } from '../lib/format';
import { DirectionTag, Gain, StatusTag } from './gain';

export function HistoryTable({ bets, testId }: { bets: ClosedBet[]; testId?: string }) {
  return (
    <table className="table responsive" data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">Ticker</th>
          <th scope="col">Direction</th>
          <th scope="col">Status</th>
          <th scope="col" className="right">
            Entry
          </th>
          <th scope="col" className="right">
            Exit
          </th>
          <th scope="col" className="right">
            Gain
          </th>
          <th scope="col">Closed</th>
        </tr>
      </thead>
      <tbody>
        {bets.map((b) => (
          <tr key={b.id}>
            <td data-label="Ticker">
              <Link to={`/bet/${b.id}`}>{b.ticker}</Link>
            </td>
            <td data-label="Direction">
              <DirectionTag direction={b.direction} />
            </td>
            <td data-label="Status">
              <StatusTag status={b.status ?? 'CLOSED'} />
            </td>
            <td data-label="Entry" className="right num">
              {formatPrice(b.entry_price)}
            </td>
            <td data-label="Exit" className="right num">
              {formatPrice(b.exit_price)}
            </td>
            <td data-label="Gain" className="right">
              <Gain value={b.percentage_gain} />
            </td>
            <td data-label="Closed">{formatDateTime(b.exit_date)}</td>
          </tr>
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
