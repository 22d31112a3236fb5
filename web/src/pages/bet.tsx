import { Link, useParams } from 'react-router-dom';
import { rangeCovering } from '../api/charts';
import { useBet, useMe } from '../api/queries';
import { BetExitsPanel, closeReasonLine } from '../components/bet-exits';
import { BetRecord } from '../components/bet-record';
import { DirectionTag, Gain, StatusTag } from '../components/gain';
import { PriceChart } from '../components/price-chart';
import { ErrorState, Loading } from '../components/status';
import { TailFadeHint } from '../components/hint';
import { TailFade } from '../components/tail-fade';
import { ThesisView } from '../components/thesis';
import { formatDateTime, formatDay, formatQuote } from '../lib/format';
import { settlementOf } from '../lib/settlement';
import { committedInstantOf, unrankedLine } from '../lib/scoring';
import { NotFoundPage } from './not-found';

export function BetPage() {
  const { id } = useParams();
  const betId = Number(id);
  const me = useMe();
  const bet = useBet(betId);
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
  const committedAt = b.committed_at ?? committedInstantOf(b.entry_date);
  const committed = b.committed_price !== undefined && b.committed_price !== null;
  // Not committed yet: an open bet inside its window, or one whose committed quote is still to come (the worker retries).
  const awaiting = !committed && (b.ranked === 'pending' || (b.ranked === undefined && b.status === 'OPEN'));
  const reason = unrankedLine(b.ranked, b.unranked_reason, committed);
  return (
    <>
      <div className="page-head">
        <h1 data-title={`${b.ticker} ${b.direction.toLowerCase()} by ${b.user.username}`}>
          {b.ticker} <DirectionTag direction={b.direction} /> <StatusTag status={b.status} />
        </h1>
        <span>
          by <Link to={`/user/${b.user.id}`}>{b.user.username}</Link>
        </span>
      </div>
      <div className="stats">
        <div className="stat">
          <span className="stat-label">Entry</span>
          <span className="stat-value num">{formatQuote(b.entry_price)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">{b.status === 'OPEN' ? 'Current' : 'Exit'}</span>
          <span className="stat-value num">{formatQuote(b.exit_price)}</span>
        </div>
        <div className="stat" data-testid="bet-committed">
          <span className="stat-label">Committed price</span>
          <span className="stat-value num">
            {committed ? (
              formatQuote(b.committed_price!)
            ) : awaiting ? (
              <span className="muted">not yet committed</span>
            ) : (
              <span className="muted">none</span>
            )}
          </span>
          {committedAt && (
            <span className="stat-sub small">
              {committed ? 'at ' : awaiting ? 'commits at ' : 'the window ended '}
              {formatDateTime(committedAt)}
            </span>
          )}
        </div>
        <div className="stat">
          <span className="stat-label">Gain</span>
          <span className="stat-value">
            <Gain value={b.percentage_gain} />
          </span>
          <span className="stat-sub small">entry → {b.status === 'OPEN' ? 'now' : 'exit'}</span>
        </div>
        <div className="stat" data-testid="bet-ranked-gain">
          <span className="stat-label">Ranked gain</span>
          <span className="stat-value">
            {b.ranked_gain !== undefined && b.ranked_gain !== null ? (
              <Gain value={b.ranked_gain} />
            ) : (
              <span className="muted">{awaiting || b.ranked === 'pending' ? 'not yet' : 'not ranked'}</span>
            )}
          </span>
          <span className="stat-sub small">committed → exit</span>
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
            <span className="stat-label">{b.status === 'OPEN' ? 'Settles' : 'Target date'}</span>
            <span className="stat-value small" data-testid="settles">
              {b.status === 'OPEN' ? settlementOf(b.ticker, b.target_date) : formatDay(b.target_date)}
            </span>
            {b.status === 'OPEN' && <span className="stat-sub small">target date {formatDay(b.target_date)}</span>}
          </div>
        )}
      </div>
      <ThesisView bet={b} own={own} signedIn={me.data !== undefined && me.data !== null} actions />
      {closeReasonLine(b.close_reason) && (
        <p className="small" data-testid="close-reason">
          {closeReasonLine(b.close_reason)}
        </p>
      )}
      {reason && (
        <p className="small" data-testid="unranked-reason">
          {reason} <Link to="/scoring">How scoring works</Link>
        </p>
      )}
      {/* Price history is for members (GET /price/{ticker}/history needs a session). */}
      {me.data && (
        <PriceChart
          ticker={b.ticker}
          since={b.entry_date}
          until={b.status === 'OPEN' ? null : b.exit_date}
          entryPrice={b.entry_price}
          initialRange={rangeCovering(b.entry_date)}
        />
      )}
      {me.data && !own && b.status === 'OPEN' && (
        <>
          <TailFadeHint />
          <TailFade betId={b.id} ticker={b.ticker} direction={b.direction} />
        </>
      )}
      {!me.isPending && !me.data && <VisitorPrompt betId={b.id} open={b.status === 'OPEN'} />}
      {own && b.status === 'OPEN' && (
        <>
          <BetExitsPanel betId={b.id} direction={b.direction} entry={b.entry_price} />
          <p>
            This is your bet: <Link to="/portfolio">manage it in your portfolio</Link>.
          </p>
        </>
      )}
      <BetRecord betId={b.id} userId={b.user.id} username={b.user.username} />
    </>
  );
}

/**
 * Where a member sees the price chart and Tail and Fade, a visitor is asked
 * in: after signing up or logging in, back to this bet.
 */
function VisitorPrompt({ betId, open }: { betId: number; open: boolean }) {
  const next = encodeURIComponent(`/bet/${betId}`);
  return (
    <div className="card sign-up-prompt" data-testid="visitor-sign-up">
      {open ? (
        <p>
          <strong>Think this call is right, or wrong?</strong> Members tail a bet (open the same one) or fade it (open the opposite) in one click, and
          follow its price on a chart.
        </p>
      ) : (
        <p>
          <strong>Members follow each bet's price on a chart</strong>, and make their own calls on stocks, ETFs and crypto with paper money.
        </p>
      )}
      <div className="actions">
        <Link to={`/register?next=${next}`} className="btn btn-small btn-primary">
          {open ? 'Sign up to tail or fade' : 'Sign up free'}
        </Link>
        <Link to={`/login?next=${next}`} className="btn btn-small">
          Log in
        </Link>
      </div>
    </div>
  );
}
