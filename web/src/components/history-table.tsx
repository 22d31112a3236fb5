import { type FormEvent, Fragment, useId, useState } from 'react';
import type { ClosedBet } from '../api/client';
import { formatDateTime } from '../lib/format';
import { filterBets, pageCount, STATUS_FILTERS, type StatusFilter } from '../lib/history-filter';
import { MAX_OFFSET } from '../lib/paging';
import { StatusTag } from './gain';
import { ThesisView } from './thesis';
import { BetCells, type Column, GainCell, PriceCell, TableHead } from './table-cells';

const COLUMNS: readonly Column[] = [['Ticker'], ['Direction'], ['Status'], ['Entry', true], ['Exit', true], ['Gain', true], ['Closed']];

/**
 * `own`: the reader's own history (a thesis withheld from others is explained as such).
 * On a phone each bet is a compact two-line row (styles.css, `.compact`), not a card of seven lines.
 */
export function HistoryTable({ bets, testId, own = false }: { bets: ClosedBet[]; testId?: string; own?: boolean }) {
  return (
    <table className="table responsive compact" data-testid={testId}>
      <TableHead columns={COLUMNS} />
      <tbody>
        {bets.map((b) => (
          <Fragment key={b.id}>
            <tr data-testid={`history-row-${b.id}`}>
              <BetCells bet={b} />
              <td data-label="Status">
                <StatusTag status={b.status ?? 'CLOSED'} />
              </td>
              <PriceCell column="Entry" price={b.entry_price} />
              <PriceCell column="Exit" price={b.exit_price} />
              <GainCell column="Gain" gain={b.percentage_gain} />
              <td data-label="Closed" className="cell-when">
                {formatDateTime(b.exit_date)}
              </td>
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

/**
 * A history page with its filters: status and ticker, over the bets this page
 * shows (SPEC's /history pages by limit and offset only, so the filters say so).
 */
export function FilteredHistory({ bets, testId, own = false }: { bets: ClosedBet[]; testId?: string; own?: boolean }) {
  const [status, setStatus] = useState<StatusFilter>('ALL');
  const [ticker, setTicker] = useState('');
  const id = useId();
  const shown = filterBets(bets, status, ticker);
  const filtering = status !== 'ALL' || ticker.trim() !== '';
  return (
    <>
      <fieldset className="history-filters" data-testid="history-filters">
        <legend className="small muted">Filter this page</legend>
        <span className="field field-inline">
          <label htmlFor={`${id}-status`}>Status</label>
          <select id={`${id}-status`} value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            {STATUS_FILTERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </span>
        <span className="field field-inline">
          <label htmlFor={`${id}-ticker`}>Ticker</label>
          <input
            id={`${id}-ticker`}
            type="search"
            value={ticker}
            onChange={(e) => setTicker(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            size={10}
          />
        </span>
        <span className="small muted" role="status" data-testid="history-filter-count">
          {filtering ? `${shown.length} of ${bets.length} bets on this page` : ''}
        </span>
      </fieldset>
      {shown.length > 0 ? (
        <HistoryTable bets={shown} testId={testId} own={own} />
      ) : (
        <p className="muted" data-testid="history-filter-empty">
          No bet on this page matches. Other pages may have some.
        </p>
      )}
    </>
  );
}

/** Previous / next over limit+offset pages; with a known total, also the first and last pages and a page number to go to. */
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
  const hasNext = total !== null ? offset + limit < total && offset + limit <= MAX_OFFSET : count === limit;
  if (offset === 0 && !hasNext) return null;
  const span = total !== null ? pageCount(total, limit, MAX_OFFSET) : null;
  const jump = span !== null && span.pages > 2;
  return (
    <nav className="pager" aria-label="Pages">
      <span className="pager-steps">
        {jump && (
          <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => onChange(0)}>
            First<span className="sr-only"> page</span>
          </button>
        )}
        <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
          {labels[0]}
        </button>
      </span>
      <span className="muted num">
        {offset + 1}–{offset + count}
        {total !== null ? ` of ${total}` : ''}
      </span>
      <span className="pager-steps">
        <button type="button" className="btn btn-small" disabled={!hasNext} onClick={() => onChange(offset + limit)}>
          {labels[1]}
        </button>
        {jump && (
          <button type="button" className="btn btn-small" disabled={offset >= span.lastOffset} onClick={() => onChange(span.lastOffset)}>
            Last<span className="sr-only"> page</span>
          </button>
        )}
      </span>
      {jump && <PageJump key={offset} page={Math.floor(offset / limit) + 1} pages={span.pages} onGo={(page) => onChange((page - 1) * limit)} />}
    </nav>
  );
}

/** "Page [n] of N, Go": a page number typed, checked against the pages there are. */
function PageJump({ page, pages, onGo }: { page: number; pages: number; onGo: (page: number) => void }) {
  const [value, setValue] = useState(String(page));
  const id = useId();
  const n = Number(value);
  const valid = Number.isInteger(n) && n >= 1 && n <= pages;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && n !== page) onGo(n);
  };
  return (
    <form className="pager-jump" onSubmit={submit}>
      <label htmlFor={id}>Page</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        max={pages}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        aria-invalid={!valid}
        aria-describedby={`${id}-of`}
      />
      <span id={`${id}-of`} className="muted num">
        of {pages}
      </span>
      <button type="submit" className="btn btn-small" disabled={!valid}>
        Go<span className="sr-only"> to page</span>
      </button>
    </form>
  );
}
