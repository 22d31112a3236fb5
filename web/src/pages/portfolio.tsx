import { Link } from 'react-router-dom';
import { useMe, usePortfolio } from '../api/queries';
import { BetActions, BetResultBanner, useBetMutations } from '../components/bet-actions';
import { Gain } from '../components/gain';
import { Hint } from '../components/hint';
import { PORTFOLIO_COLUMNS, PortfolioCells } from '../components/portfolio-cells';
import { Empty, ErrorState, Loading } from '../components/status';
import { TableHead } from '../components/table-cells';
import { StatsSummary } from '../components/trader-stats';
import { countOf, formatDateTime } from '../lib/format';
import { settlementOf } from '../lib/settlement';

export function PortfolioPage() {
  const me = useMe();
  const portfolio = usePortfolio();
  const mutations = useBetMutations();
  const capacity = me.data?.bet_capacity ?? 0;
  const full = portfolio.data !== undefined && me.data && portfolio.data.length >= capacity;

  return (
    <>
      <div className="page-head">
        <h1>Portfolio</h1>
        <Link to="/markets" className="btn btn-primary">
          Open a bet
        </Link>
      </div>
      {me.data && <StatsSummary userId={me.data.id} />}
      {full && (
        <p className="alert alert-warn" role="status">
          All {capacity} open-bet slots are in use: close a bet or <Link to="/plans">upgrade your plan</Link> to open more.
        </p>
      )}
      <BetResultBanner result={mutations.result} />
      {portfolio.data && portfolio.data.length > 0 && (
        <div className="card portfolio-total" data-testid="portfolio-total">
          <p className="portfolio-sum">
            <span className="muted">Unrealized gain, {countOf(portfolio.data.length, 'open bet')}:</span>{' '}
            <strong>
              <Gain value={portfolio.data.reduce((sum, bet) => sum + bet.unrealized_gain, 0)} />
            </strong>
          </p>
          <p className="portfolio-note muted" data-testid="portfolio-total-note">
            The sum of each open bet's percentage move from its entry price to the current price. No money is staked, so this is a sum of percentages,
            not a return on an amount: two bets at +2 % and −1 % show +1 %.
          </p>
        </div>
      )}
      {portfolio.data && portfolio.data.length > 0 && (
        <Hint id="cancel-window" title="The 5-minute cancel window.">
          For 5 minutes after opening, a bet can be cancelled: it stays in your history at 0 % and never counts. After that it can only be closed, and
          the ranked boards count its gain from the price at the moment the window ended, so a quick change of mind never scores.
        </Hint>
      )}
      {portfolio.isPending && <Loading />}
      {portfolio.isError && <ErrorState error={portfolio.error} retry={() => void portfolio.refetch()} />}
      {portfolio.data && portfolio.data.length === 0 && (
        <Empty>
          No open bets. <Link to="/markets">Find a ticker</Link> to open one.
        </Empty>
      )}
      {portfolio.data && portfolio.data.length > 0 && (
        <table className="table responsive compact" data-testid="portfolio-table">
          <TableHead columns={PORTFOLIO_COLUMNS}>
            <th scope="col">Settles</th>
            <th scope="col">Opened</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </TableHead>
          <tbody>
            {portfolio.data.map((bet) => (
              <tr key={bet.id} data-testid={`bet-row-${bet.id}`}>
                <PortfolioCells bet={bet} />
                <td data-label="Settles" data-testid="settles" className={bet.target_date ? undefined : 'cell-none'}>
                  {bet.target_date ? settlementOf(bet.ticker, bet.target_date) : 'when you close it'}
                </td>
                <td data-label="Opened" className="cell-when">
                  {formatDateTime(bet.entry_date)}
                </td>
                <td data-label="" className="cell-actions">
                  <BetActions bet={bet} mutations={mutations} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
