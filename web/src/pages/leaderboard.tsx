import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, call } from '../api/client';
import { Gain } from '../components/gain';
import { Empty, ErrorState, Loading } from '../components/status';
import { useMe } from '../lib/auth';

export function LeaderboardPage() {
  const me = useMe();
  const board = useQuery({ queryKey: ['leaderboard'], queryFn: () => call(api.GET('/leaderboard')), refetchInterval: 30_000 });
  return (
    <>
      <h1>Leaderboard</h1>
      <p className="muted small">Sum of the gains of closed bets; cancelled bets do not count.</p>
      {board.isPending && <Loading />}
      {board.isError && <ErrorState error={board.error} retry={() => void board.refetch()} />}
      {board.data && board.data.length === 0 && <Empty>No closed bets yet: the first trader to close a bet leads.</Empty>}
      {board.data && board.data.length > 0 && (
        <table className="table" data-testid="leaderboard-table">
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
