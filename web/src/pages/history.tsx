import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, call } from '../api/client';
import { Gain } from '../components/gain';
import { HistoryTable, Pager } from '../components/history-table';
import { Empty, ErrorState, Loading } from '../components/status';
import { useMe } from '../lib/auth';
import { PAGE_SIZE, useOffset } from '../lib/paging';

export function HistoryPage() {
  const me = useMe();
  const [offset, setOffset] = useOffset();
  const history = useQuery({
    queryKey: ['history', offset],
    queryFn: () => call(api.GET('/history', { params: { query: { limit: PAGE_SIZE, offset } } })),
    placeholderData: keepPreviousData,
  });
  const userId = me.data?.id ?? 0;
  const total = useQuery({
    queryKey: ['history', 'total', userId],
    queryFn: () => call(api.GET('/user/{user_id}/public', { params: { path: { user_id: userId }, query: { limit: 1, offset: 0 } } })),
    enabled: userId > 0,
  });
  const leaderboard = useQuery({ queryKey: ['leaderboard'], queryFn: () => call(api.GET('/leaderboard')) });
  const mine = leaderboard.data?.find((u) => u.id === userId);

  return (
    <>
      <h1>History</h1>
      <div className="stats" data-testid="my-score">
        <div className="stat">
          <span className="stat-label">Score</span>
          <span className="stat-value">
            {mine ? (
              <Gain value={mine.total_score} />
            ) : leaderboard.isPending ? (
              '…'
            ) : leaderboard.isError ? (
              '—'
            ) : (
              <span className="muted">not ranked</span>
            )}
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Closed trades</span>
          <span className="stat-value num">{mine ? mine.total_trades : leaderboard.isPending ? '…' : leaderboard.isError ? '—' : 0}</span>
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
          <HistoryTable bets={history.data} testId="history-table" />
          <Pager offset={offset} limit={PAGE_SIZE} total={total.data?.history_total ?? null} count={history.data.length} onChange={setOffset} />
        </>
      )}
    </>
  );
}
