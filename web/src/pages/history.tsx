import { Link } from 'react-router-dom';
import { useHistory, useHistoryTotal, useMe, useStanding } from '../api/queries';
import { Gain } from '../components/gain';
import { FilteredHistory, Pager } from '../components/history-table';
import { Empty, ErrorState, Loading } from '../components/status';
import { LEADERBOARD_PAGE, PAGE_SIZE, useOffset } from '../lib/paging';

export function HistoryPage() {
  const me = useMe();
  const [offset, setOffset] = useOffset();
  const history = useHistory(offset);
  const total = useHistoryTotal(me.data?.id ?? 0);
  // The caller's own standing: the leaderboard lists only its top rows.
  const standing = useStanding(null);
  const mine = standing.data?.windows.find((w) => w.period === 'all');
  const pending = standing.isPending ? '…' : '—';

  return (
    <>
      <h1>History</h1>
      <div className="stats" data-testid="my-score">
        <div className="stat">
          <span className="stat-label">Raw score</span>
          <span className="stat-value">{mine ? <Gain value={mine.total_score} /> : pending}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Closed trades</span>
          <span className="stat-value num">{mine ? mine.total_trades : pending}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Raw board rank</span>
          <span className="stat-value num" data-testid="my-rank">
            {!mine ? (
              pending
            ) : mine.rank === null ? (
              <span className="muted">not ranked</span>
            ) : (
              <Link
                to={`/leaderboard?board=raw${mine.rank > LEADERBOARD_PAGE ? `&offset=${Math.floor((mine.rank - 1) / LEADERBOARD_PAGE) * LEADERBOARD_PAGE}` : ''}`}
              >
                #{mine.rank}
              </Link>
            )}
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Closed and cancelled</span>
          <span className="stat-value num">{total.data ? total.data.history_total : '—'}</span>
        </div>
      </div>
      <p className="muted small">Cancelled bets stay in your history at 0% and never count toward the leaderboard.</p>
      {history.isPending && <Loading />}
      {history.isError && <ErrorState error={history.error} retry={() => void history.refetch()} />}
      {history.data && history.data.length === 0 && offset === 0 && (
        <Empty>
          Nothing closed yet. Bets you close or cancel appear here; <Link to="/portfolio">see your open bets</Link>.
        </Empty>
      )}
      {history.data && history.data.length > 0 && (
        <>
          <FilteredHistory bets={history.data} testId="history-table" own />
          <Pager offset={offset} limit={PAGE_SIZE} total={total.data?.history_total ?? null} count={history.data.length} onChange={setOffset} />
        </>
      )}
    </>
  );
}
