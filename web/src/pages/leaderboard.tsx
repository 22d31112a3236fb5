import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, call } from '../api/client';
import { Gain } from '../components/gain';
import { Empty, ErrorState, Loading } from '../components/status';
import { WindowControls } from '../components/window-controls';
import { useMe } from '../lib/auth';
import { type Period, PERIOD_LABELS, useWindowParams, type WindowParams } from '../lib/window-params';

// No period: SPEC's all-time board; `period=all` in a link means the same board.
const DEFAULTS: WindowParams = { period: null, minTrades: null };
const PERIOD_BUTTONS: readonly (Period | null)[] = ['7d', '30d', '90d', '365d', null];

export function LeaderboardPage() {
  const me = useMe();
  const [win, setWin] = useWindowParams(DEFAULTS);
  const period = win.period === 'all' ? null : win.period;
  const board = useQuery({
    queryKey: ['leaderboard', period, win.minTrades],
    queryFn: () =>
      call(
        api.GET('/leaderboard', { params: { query: { ...(period ? { period } : {}), ...(win.minTrades ? { min_trades: win.minTrades } : {}) } } }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const narrowed = period !== null || win.minTrades !== null;
  return (
    <>
      <h1>Leaderboard</h1>
      <p className="muted small">
        Sum of the gains of closed bets{period ? `, closed in the last ${PERIOD_LABELS[period]}` : ''}; cancelled bets do not count.{' '}
        <Link to="/rankings">Rankings</Link> measure skill against the market instead.
      </p>
      <WindowControls value={{ period, minTrades: win.minTrades }} onChange={setWin} periods={PERIOD_BUTTONS} minTradesDefault={1} />
      {board.isPending && <Loading />}
      {board.isError && <ErrorState error={board.error} retry={() => void board.refetch()} />}
      {board.data && board.data.length === 0 && (
        <Empty>
          {narrowed
            ? 'Nobody matches this window: try a longer period or a lower minimum.'
            : 'No closed bets yet: the first trader to close a bet leads.'}
        </Empty>
      )}
      {board.data && board.data.length > 0 && (
        <table className={`table ${board.isPlaceholderData ? 'stale' : ''}`} data-testid="leaderboard-table" aria-busy={board.isPlaceholderData}>
          <thead>
            <tr>
              <th scope="col" className="right">
                #
              </th>
              <th scope="col">Trader</th>
              <th scope="col" className="right">
                Score
              </th>
              <th scope="col" className="right">
                Trades
              </th>
            </tr>
          </thead>
          <tbody>
            {board.data.map((u, i) => (
              <tr key={u.id} className={u.id === me.data?.id ? 'row-me' : undefined}>
                <td className="right num">{i + 1}</td>
                <td>
                  <Link to={`/user/${u.id}`}>{u.username}</Link>
                </td>
                <td className="right">
                  <Gain value={u.total_score} />
                </td>
                <td className="right num">{u.total_trades}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
