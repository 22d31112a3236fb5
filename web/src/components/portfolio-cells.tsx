import type { PortfolioBet } from '../api/client';
import { BetCells, type Column, GainCell, PriceCell } from './table-cells';

/** The columns every open-bet table starts with (own portfolio and public profiles alike). */
export const PORTFOLIO_COLUMNS: readonly Column[] = [['Ticker'], ['Direction'], ['Entry (USD)', true], ['Current (USD)', true], ['Unrealized', true]];

/** The cells of PORTFOLIO_COLUMNS for one open bet. */
export function PortfolioCells({ bet }: { bet: PortfolioBet }) {
  return (
    <>
      <BetCells bet={bet} />
      <PriceCell column="Entry" price={bet.entry} />
      <PriceCell column="Current" price={bet.current} />
      <GainCell column="Unrealized" gain={bet.unrealized_gain} />
    </>
  );
}
