import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { rangeCovering } from '../api/charts';
import { api, call } from '../api/client';
import { BetRecord } from '../components/bet-record';
import { DirectionTag, Gain, StatusTag } from '../components/gain';
import { PriceChart } from '../components/price-chart';
import { ErrorState, Loading } from '../components/status';
import { TailFade } from '../components/tail-fade';
import { useMe } from '../lib/auth';
import { formatDateTime, formatPrice } from '../lib/format';
import { NotFoundPage } from './not-found';

export function BetPage() {
  const { id } = useParams();
  const betId = Number(id);
  const me = useMe();
  const bet = useQuery({
    queryKey: ['bet', betId],
    queryFn: () => call(api.GET('/bet/{bet_id}', { params: { path: { bet_id: betId } } })),
    enabled: Number.isInteger(betId) && betId > 0,
    refetchInterval: 10_000,
  });
  if (!Number.isInteger(betId) || betId <= 0) return <NotFoundPage />;
  if (bet.isPending || bet.isError) {
    return (
      <>
        <h1>Bet #{betId}</h1>
        {bet.isError ? <ErrorState error={bet.error} retry={() => void bet.refetch()} /> : <Loading />}
      </>
    );
  }
  const b = bet.data;
  const own = me.data?.id === b.user.id;
  return (
    <>
      <div className="page-head">
        <h1>
          {b.ticker} <DirectionTag direction={b.direction} /> <StatusTag status={b.status} />
        </h1>
        <span>
          by <Link to={`/user/${b.user.id}`}>{b.user.username}</Link>
        </span>
      </div>
      <div className="stats">
        <div className="stat">
          <span className="stat-label">Entry</span>
          <span className="stat-value num">{formatPrice(b.entry_price)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">{b.status === 'OPEN' ? 'Current' : 'Exit'}</span>
          <span className="stat-value num">{formatPrice(b.exit_price)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Gain</span>
          <span className="stat-value">
            <Gain value={b.percentage_gain} />
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Opened</span>
          <span className="stat-value small">{formatDateTime(b.entry_date)}</span>
        </div>
        {b.status !== 'OPEN' && (
          <div className="stat">
            <span className="stat-label">{b.status === 'CANCELLED' ? 'Cancelled' : 'Closed'}</span>
            <span className="stat-value small">{formatDateTime(b.exit_date)}</span>
          </div>
        )}
        {b.target_date && (
          <div className="stat">
            <span className="stat-label">Target date</span>
            <span className="stat-value small">{b.target_date}</span>
          </div>
        )}
      </div>
      <PriceChart
        ticker={b.ticker}
        since={b.entry_date}
        until={b.status === 'OPEN' ? null : b.exit_date}
        entryPrice={b.entry_price}
        initialRange={rangeCovering(b.entry_date)}
      />
      {me.data && !own && b.status === 'OPEN' && <TailFade betId={b.id} ticker={b.ticker} />}
      {own && b.status === 'OPEN' && (
        <p>
          This is your bet: <Link to="/portfolio">manage it in your portfolio</Link>.
        </p>
      )}
      <BetRecord betId={b.id} userId={b.user.id} username={b.user.username} />
    </>
  );
}
