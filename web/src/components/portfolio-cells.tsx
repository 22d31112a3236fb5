import { Link } from 'react-router-dom';
import type { PortfolioBet } from '../api/client';
import { formatPrice } from '../lib/format';
import { DirectionTag, Gain } from './gain';

/** The cells every open-bet row shows (own portfolio and public profiles alike). */
export function PortfolioCells({ bet }: { bet: PortfolioBet }) {
  return (
    <>
      <td data-label="Ticker">
        <Link to={`/bet/${bet.id}`}>{bet.ticker}</Link>
      </td>
      <td data-label="Direction">
        <DirectionTag direction={bet.direction} />
      </td>
      <td data-label="Entry" className="right num">
        {formatPrice(bet.entry)}
      </td>
      <td data-label="Current" className="right num">
        {formatPrice(bet.current)}
      </td>
      <td data-label="Unrealized" className="right">
        <Gain value={bet.unrealized_gain} />
      </td>
    </>
  );
}

/** The column headers matching PortfolioCells. */
export function PortfolioHeadCells() {
  return (
    <>
      <th scope="col">Ticker</th>
      <th scope="col">Direction</th>
      <th scope="col" className="right">
        Entry
      </th>
      <th scope="col" className="right">
        Current
      </th>
      <th scope="col" className="right">
        Unrealized
      </th>
    </>
  );
}
