import { Link, useSearchParams } from 'react-router-dom';
import { useLeaderboard, useMe, useStanding } from '../api/queries';
import { BoardTabs, ScoringLink } from '../components/board-tabs';
import { Gain } from '../components/gain';
import { Pager } from '../components/history-table';
import { Empty, ErrorState, Loading } from '../components/status';
import { type Column, TableHead } from '../components/table-cells';
import { WindowControls } from '../components/window-controls';
import { countOf } from '../lib/format';
import { LEADERBOARD_PAGE, MAX_OFFSET, useOffset } from '../lib/paging';
import { parseBoard } from '../lib/scoring';
import { type Period, PERIOD_LABELS, parseWindow, useWindowParams, type WindowParams, writeWindow } from '../lib/window-params';

// Two boards, chosen by `board` in the URL: the ranked one (GET /leaderboard/ranked) by default, SPEC's raw one
// (GET /leaderboard) with `board=raw`. No period: the all-time board; `period=all` in a link means the same board.
const DEFAULTS: WindowParams = { period: null, minTrades: null };
const PERIOD_BUTTONS: readonly (Period | null)[] = ['7d', '30d', '90d', '365d', null];
const COLUMNS: readonly Column[] = [['#', true], ['Trader'], ['Score', true], ['Trades', true]];

export function LeaderboardPage() {
  const me = useMe();
  const [win] = useWindowParams(DEFAULTS);
  const [rawOffset, setOffset] = useOffset();
  // Pages start at multiples of the page size, so a rank's page is where it is expected.
  const offset = rawOffset - (rawOffset % LEADERBOARD_PAGE);
  const period = win.period === 'all' ? null : win.period;
  const [params, setParams] = useSearchParams();
  const which = parseBoard(params);
  const ranked = which === 'ranked';
  const board = useLeaderboard(which, period, win.minTrades, offset);
  const standing = useStanding(win.minTrades, { enabled: Boolean(me.data), refetchInterval: 30_000 });
  const mine = (ranked ? standing.data?.ranked_windows : standing.data?.windows)?.find((w) => w.period === (period ?? 'all'));
  const shown = board.data?.length ?? 0;
  const onThisPage = mine?.rank != null && mine.rank > offset && mine.rank <= offset + shown;
  const myPage = mine?.rank != null ? Math.floor((mine.rank - 1) / LEADERBOARD_PAGE) * LEADERBOARD_PAGE : null;
  // Another window is another board: back to its top, in one history entry.
  const changeWindow = (next: Partial<WindowParams>) =>
    setParams((p) => {
      const q = writeWindow(p, { ...parseWindow(p, DEFAULTS), ...next }, DEFAULTS);
      q.delete('offset');
      return q;
    });
  const narrowed = period !== null || win.minTrades !== null;
  return (
    <>
      <h1>Leaderboard</h1>
      <BoardTabs board={which} />
      <p className="muted small" data-testid="board-explained">
        {ranked ? (
          <>
            Sum of the ranked gains of closed bets{period ? `, closed in the last ${PERIOD_LABELS[period]}` : ''}: each runs from the committed price,
            the first quote once the 5-minute cancel window has ended, to the exit. Closes inside the window and cancelled bets do not count.
          </>
        ) : (
          <>
            Sum of the gains of every closed bet, entry to exit{period ? `, closed in the last ${PERIOD_LABELS[period]}` : ''}, as the API's{' '}
            <code>/leaderboard</code> counts them; cancelled bets do not count.
          </>
        )}{' '}
        <ScoringLink />. <Link to="/rankings">Rankings</Link> measure skill against the market instead.
      </p>
      <WindowControls value={{ period, minTrades: win.minTrades }} onChange={changeWindow} periods={PERIOD_BUTTONS} minTradesDefault={1} />
      {mine && board.data && !onThisPage && (
        <p className="card your-rank" data-testid="your-rank">
          {mine.rank === null ? (
            <>
              You are not ranked here yet
              {win.minTrades && win.minTrades > 1
                ? `: it takes ${win.minTrades} ${ranked ? 'ranked' : 'closed'} bets in this window`
                : ranked
                  ? ': close a bet held past its cancel window to join'
                  : ': close a bet to join'}
              .
            </>
          ) : (
            <>
              Your rank: <strong className="num">#{mine.rank}</strong> with <Gain value={mine.total_score} /> over{' '}
              <span className="num">{countOf(mine.total_trades, 'trade')}</span>.{' '}
              {myPage !== null && myPage <= MAX_OFFSET && (
                <button type="button" className="btn btn-small" onClick={() => setOffset(myPage)}>
                  Show my page
                </button>
              )}
            </>
          )}
        </p>
      )}
      {board.isPending && <Loading />}
      {board.isError && <ErrorState error={board.error} retry={() => void board.refetch()} />}
      {board.data && board.data.length === 0 && (
        <Empty>
          {offset > 0
            ? 'Nobody ranks this far down.'
            : narrowed
              ? 'Nobody matches this window: try a longer period or a lower minimum.'
              : ranked
                ? 'No ranked bets yet: the first trader to close a bet held past its cancel window leads.'
                : 'No closed bets yet: the first trader to close a bet leads.'}
        </Empty>
      )}
      {board.data && board.data.length > 0 && (
        <table className={`table ${board.isPlaceholderData ? 'stale' : ''}`} data-testid="leaderboard-table" aria-busy={board.isPlaceholderData}>
          <caption className="sr-only">{ranked ? 'Ranked gains' : 'Raw gains, every close counted'}</caption>
          <TableHead columns={COLUMNS} />
          <tbody>
            {board.data.map((u, i) => (
              <tr key={u.id} className={u.id === me.data?.id ? 'row-me' : undefined}>
                <td className="right num">{offset + i + 1}</td>
                <td className="cell-name">
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
      {board.data && (
        <Pager
          offset={offset}
          limit={LEADERBOARD_PAGE}
          total={offset + LEADERBOARD_PAGE > MAX_OFFSET ? offset + board.data.length : null}
          count={board.data.length}
          onChange={setOffset}
          labels={['← Higher', 'Lower →']}
        />
      )}
    </>
  );
}
