// The app's root. A visitor finds the front door: what the service is, the
// live top 10 of the ranked board, and the ways in (sign up, log in). A
// signed-in user goes straight to their portfolio.
import { Link, Navigate, useLocation } from 'react-router-dom';
import { useMe, useTopTraders } from '../api/queries';
import { ScoringLink } from '../components/board-tabs';
import { Gain } from '../components/gain';
import { Empty, ErrorState, Loading } from '../components/status';
import { countOf } from '../lib/format';
import { SITE_NAME } from '../lib/page-heading';

const TOP = 10;

export function HomePage() {
  const me = useMe();
  const { search } = useLocation();
  // Checkout returns to the app's root with its outcome in the query.
  if (new URLSearchParams(search).has('checkout')) return <Navigate to={`/billing${search}`} replace />;
  if (me.isPending) return <Loading />;
  if (me.data) return <Navigate to="/portfolio" replace />;
  return <FrontDoor />;
}

function FrontDoor() {
  return (
    <div className="front">
      <section className="hero" aria-labelledby="front-heading">
        <h1 id="front-heading" data-title={SITE_NAME}>
          Call the market with paper money
        </h1>
        <p className="lead">
          {SITE_NAME} is a free paper-trading game. Bet that a stock, an ETF or a coin goes up (long) or down (short) at the live price, close when
          you choose, and your gains add up on a public leaderboard, ranked from the end of each bet's cancel window so only a real call scores.
        </p>
        <ul className="front-points">
          <li>
            <strong>No money at stake.</strong> Every bet is on paper; only your record is real.
          </li>
          <li>
            <strong>Follow the best.</strong> See the bets of traders you follow, and tail or fade them in one click.
          </li>
          <li>
            <strong>A record nobody can rewrite.</strong> Each bet goes into a public hash chain whose daily root is published, so any record can be
            checked.
          </li>
        </ul>
        <div className="front-actions">
          <Link to="/register" className="btn btn-primary">
            Sign up free
          </Link>
          <Link to="/login" className="btn">
            Log in
          </Link>
        </div>
      </section>
      <TopTraders />
    </div>
  );
}

/** The ranked board's first rows, refreshed as it changes; SPEC's raw board is a link away. */
function TopTraders() {
  const board = useTopTraders(TOP);
  return (
    <section className="card front-board" aria-labelledby="front-board-heading">
      <h2 id="front-board-heading">Top {TOP} traders now</h2>
      <p className="muted small">By ranked gains: each bet counts from its committed price, once its 5-minute cancel window has ended.</p>
      {board.isPending && <Loading />}
      {board.isError && <ErrorState error={board.error} retry={() => void board.refetch()} />}
      {board.data && board.data.length === 0 && <Empty>No ranked bets yet: the first trader to close a bet held past its cancel window leads.</Empty>}
      {board.data && board.data.length > 0 && (
        <ol className="board-list" data-testid="front-leaderboard">
          {board.data.slice(0, TOP).map((u, i) => (
            <li key={u.id} className="board-row">
              <span className="board-rank num">{i + 1}</span>
              <Link to={`/user/${u.id}`} className="board-name">
                {u.username}
              </Link>
              <span className="board-score">
                <Gain value={u.total_score} />
                <span className="muted small"> · {countOf(u.total_trades, 'trade')}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
      <p className="small">
        <Link to="/leaderboard">The whole leaderboard</Link> · <Link to="/leaderboard?board=raw">Raw gains: every close counts</Link> ·{' '}
        <Link to="/rankings">Rankings by skill</Link> · <ScoringLink />
      </p>
    </section>
  );
}
