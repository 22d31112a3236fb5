// The pieces the app's tables share: the header row from a list of columns,
// and the cells of a bet's row (its ticker and direction, a price, a gain).
// Each body cell names its column in data-label, which a responsive table
// shows beside the value on a phone (styles.css).
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { Direction } from '../api/client';
import { formatPrice } from '../lib/format';
import { DirectionTag, Gain } from './gain';

/** A column's header, and whether it holds numbers (aligned right). */
export type Column = readonly [label: string, right?: boolean];

/** The header row: one column header per column, then any further headers given as children. */
export function TableHead({ columns, children }: { columns: readonly Column[]; children?: ReactNode }) {
  return (
    <thead>
      <tr>
        {columns.map(([label, right]) => (
          <th key={label} scope="col" className={right ? 'right' : undefined}>
            {label}
          </th>
        ))}
        {children}
      </tr>
    </thead>
  );
}

/** A bet's first two cells: its ticker, linking to the bet, and its direction. */
export function BetCells({ bet }: { bet: { id: number; ticker: string; direction: Direction } }) {
  return (
    <>
      <td data-label="Ticker">
        <Link to={`/bet/${bet.id}`}>{bet.ticker}</Link>
      </td>
      <td data-label="Direction">
        <DirectionTag direction={bet.direction} />
      </td>
    </>
  );
}

export function PriceCell({ column, price }: { column: string; price: number }) {
  return (
    <td data-label={column} className="right num">
      {formatPrice(price)}
    </td>
  );
}

export function GainCell({ column, gain }: { column: string; gain: number }) {
  return (
    <td data-label={column} className="right">
      <Gain value={gain} />
    </td>
  );
}
