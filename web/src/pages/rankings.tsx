import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Schemas } from '../api/client';
import { useMe, useRankings } from '../api/queries';
import { ScoringLink } from '../components/board-tabs';
import { Gain } from '../components/gain';
import { Hint } from '../components/hint';
import { Empty, ErrorState, Loading } from '../components/status';
import { type Column, TableHead } from '../components/table-cells';
import { WindowControls } from '../components/window-controls';
import { countOf, formatPoints } from '../lib/format';
import { skillExplanation } from '../lib/skill';
import { PERIOD_LABELS, PERIODS, useWindowParams, type WindowParams } from '../lib/window-params';

type RankingRow = Schemas['RankingRow'];

const COLUMNS: readonly Column[] = [['#', true], ['Trader'], ['Skill', true], ['Mean alpha', true], ['Trades', true], ['Ranked gain', true]];

// The same default window as the leaderboard's (all time), so the two boards open comparable; the API's own default stays 90 days.
const DEFAULTS: WindowParams = { period: 'all', minTrades: null };

function Points({ value }: { value: number }) {
  return <span className={`num ${value > 0 ? 'gain-up' : value < 0 ? 'gain-down' : 'gain-flat'}`}>{formatPoints(value)}</span>;
}

function Row({ row, me }: { row: RankingRow; me: boolean }) {
  const [open, setOpen] = useState(false);
  const whyId = `why-${row.id}`;
  return (
    <>
      <tr className={me ? 'row-me' : undefined} data-testid={me ? 'rank-me' : `rank-row-${row.id}`}>
        <td data-label="Rank" className="right num">
          {row.rank}
        </td>
        <td data-label="Trader">
          <span>
            <Link to={`/user/${row.id}`}>{row.username}</Link>
            {me && <span className="muted small"> (you)</span>}
          </span>
        </td>
        <td data-label="Skill" className="right">
          <span className="skill-cell">
            <Points value={row.skill} />
            <button type="button" className="btn btn-small btn-why" aria-expanded={open} aria-controls={whyId} onClick={() => setOpen((v) => !v)}>
              Why?<span className="sr-only"> The skill of {row.username}</span>
            </button>
          </span>
        </td>
        <td data-label="Mean alpha" className="right">
          <Points value={row.mean_alpha} />
        </td>
        <td data-label="Trades" className="right num">
          {row.n}
        </td>
        <td data-label="Ranked gain" className="right">
          <Gain value={row.total_score} />
        </td>
      </tr>
      <tr id={whyId} className="why-row" hidden={!open} data-testid={`why-${row.id}`}>
        <td className="why-cell" colSpan={COLUMNS.length}>
          {skillExplanation(row).map((line) => (
            <p key={line} className="why-text">
              {line}
            </p>
          ))}
        </td>
      </tr>
    </>
  );
}

export function RankingsPage() {
  const me = useMe();
  const [win, setWin] = useWindowParams(DEFAULTS);
  const period = win.period ?? 'all';
  const minTrades = win.minTrades ?? 1;
  const rankings = useRankings(period, minTrades, me.data?.id ?? null);
  const data = rankings.data;
  const myId = me.data?.id;
  const inTop = data?.rows.some((r) => r.id === myId) ?? false;

  return (
    <>
      <h1>Rankings</h1>
      <p className="muted small">
        Skill against the market: each ranked bet's alpha is its ranked gain (from the committed price, once the 5-minute cancel window has ended)
        minus what the same direction on the benchmark (SPY for stocks and ETFs, BTC-USD for crypto) made from the same instant. Skill is the mean
        alpha less a margin for few or uneven trades (mean − 1.645 × s / √n), so a lucky streak of two trades does not lead. <ScoringLink />.
      </p>
      <Hint id="alpha-points" title="Alpha and points.">
        A bet's gain is a percentage move. Its alpha is that gain minus what the same direction on the benchmark made over the same time: a LONG up 3
        % while SPY rose 2 % has an alpha of +1 point (pt). Skill is the mean alpha less a margin that shrinks with more, steadier trades; each row's
        Why? shows its numbers.
      </Hint>
      <WindowControls value={{ period, minTrades: win.minTrades }} onChange={setWin} periods={PERIODS} minTradesDefault={1} />
      {rankings.isPending && <Loading />}
      {rankings.isError && <ErrorState error={rankings.error} retry={() => void rankings.refetch()} />}
      {data && data.rows.length === 0 && (
        <Empty>
          Nobody has {minTrades === 1 ? 'a ranked trade' : `${minTrades} ranked trades`} with an alpha in{' '}
          {period === 'all' ? 'the whole record' : `the last ${PERIOD_LABELS[period]}`}. Try a longer period or a lower minimum.
        </Empty>
      )}
      {data && data.rows.length > 0 && (
        <table
          className={`table responsive ${rankings.isPlaceholderData ? 'stale' : ''}`}
          data-testid="rankings-table"
          aria-busy={rankings.isPlaceholderData}
        >
          <caption className="sr-only">
            Top traders by skill, {PERIOD_LABELS[data.period]}, at least {countOf(data.min_trades, 'trade')}
          </caption>
          <TableHead columns={COLUMNS} />
          <tbody>
            {data.rows.map((r) => (
              <Row key={r.id} row={r} me={r.id === myId} />
            ))}
          </tbody>
          {data.me && (
            <tbody className="rank-own">
              <tr className="rank-gap" aria-hidden="true">
                <td colSpan={COLUMNS.length}>⋯</td>
              </tr>
              <Row row={data.me} me />
            </tbody>
          )}
        </table>
      )}
      {data && me.data && !inTop && !data.me && (
        <p className="muted small" data-testid="rank-none">
          You are not ranked in this window: it needs {data.min_trades === 1 ? 'a ranked bet' : `${data.min_trades} ranked bets`} with an alpha.
        </p>
      )}
    </>
  );
}
