// One league: rules, members, the invite link, the board with the caller's
// row highlighted, and the members' bets (docs/leagues.md).
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api, call, type Schemas } from '../api/client';
import { useInvalidate, useLeague, useLeagueBoard, useLeagueFeed, useMe } from '../api/queries';
import { afterMembershipChange, queryKeys } from '../api/query-keys';
import { ScoringLink } from '../components/board-tabs';
import { DirectionTag, Gain, StatusTag } from '../components/gain';
import { Empty, ErrorState, LimitMessage, Loading } from '../components/status';
import { type Column, TableHead } from '../components/table-cells';
import { formatDateTime, formatPoints, formatPrice, formatRate } from '../lib/format';
import { scoringVersionText } from '../lib/scoring';
import { rulesText, STATUS_LABELS } from './leagues';

type League = Schemas['League'];
type BoardRow = Schemas['LeagueBoardRow'];

const BOARD_COLUMNS: readonly Column[] = [['#', true], ['Member'], ['Score', true], ['Trades', true], ['Cancel rate', true]];

/** The invite link as a visitor opens it: the app's own address, whatever WEB_URL is. */
export function inviteLink(code: string): string {
  return new URL(`leagues/join/${code}`, document.baseURI).href;
}

function Board({ id, myId, scoring }: { id: number; myId: number | null; scoring: string }) {
  const board = useLeagueBoard(id);
  if (board.isPending) return <Loading />;
  if (board.isError) return <ErrorState error={board.error} retry={() => void board.refetch()} />;
  const data = board.data;
  const score = (r: BoardRow) => (r.score === null ? '–' : scoring === 'gain' ? <Gain value={r.score} /> : formatPoints(r.score));
  const version = scoringVersionText(data.scoring_version);
  return (
    <section className="card" aria-label="Board">
      <div className="page-head">
        <h2>{data.final ? 'Final board' : 'Board'}</h2>
        <span className="muted small" data-testid="board-as-of">
          {data.final
            ? `Frozen at the end, settled ${formatDateTime(data.settled_at)}`
            : `As of ${formatDateTime(data.as_of)}; open bets at current prices`}
        </span>
      </div>
      <p className="small" data-testid="board-scoring">
        {version && (
          <>
            Scored on <strong>{version}</strong>.{' '}
          </>
        )}
        <ScoringLink />
      </p>
      {data.rows.length === 0 ? (
        <Empty>No members yet.</Empty>
      ) : (
        <table className="table responsive league-board" data-testid="league-board">
          <TableHead columns={BOARD_COLUMNS} />
          <tbody>
            {data.rows.map((r) => {
              const me = r.user.id === myId;
              return (
                <tr key={r.user.id} className={me ? 'row-me' : undefined} data-testid={me ? 'board-me' : 'board-row'}>
                  <td data-label="Rank" className="right num">
                    {r.rank ?? '–'}
                  </td>
                  <td data-label="Member">
                    <span>
                      <Link to={`/user/${r.user.id}`}>{r.user.username}</Link>
                      {me && <span className="muted small"> (you)</span>}
                      {r.left && <span className="muted small"> (left)</span>}
                    </span>
                  </td>
                  <td data-label="Score" className="right">
                    {score(r)}
                  </td>
                  <td data-label="Trades" className="right num">
                    {r.trades}
                    {r.marked > 0 && <span className="muted small"> ({r.marked} marked)</span>}
                  </td>
                  <td data-label="Cancel rate" className="right num">
                    {formatRate(r.cancel_rate)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Feed({ id }: { id: number }) {
  const feed = useLeagueFeed(id);
  if (feed.isPending) return <Loading />;
  if (feed.isError) return <ErrorState error={feed.error} />;
  return (
    <section className="card" aria-label="Members' bets">
      <h2>Members' bets</h2>
      {feed.data.items.length === 0 ? (
        <Empty>No bet in the league yet.</Empty>
      ) : (
        <ul className="league-feed">
          {feed.data.items.map((b) => (
            <li key={b.bet_id} className={b.counted ? undefined : 'muted'}>
              <Link to={`/user/${b.user.id}`}>{b.user.username}</Link> <DirectionTag direction={b.direction} />{' '}
              <Link to={`/bet/${b.bet_id}`}>{b.ticker}</Link> at {formatPrice(b.entry_price)} <StatusTag status={b.status} />
              {b.percentage_gain !== null && (
                <>
                  {' '}
                  <Gain value={b.percentage_gain} />
                </>
              )}
              {!b.counted && <span className="small"> (not counted: instrument excluded)</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Membership({ league, myId }: { league: League; myId: number }) {
  const invalidate = useInvalidate();
  const navigate = useNavigate();
  const refresh = () => invalidate(...afterMembershipChange(league.id));
  const path = { params: { path: { id: league.id } } };
  const leave = useMutation({ mutationFn: () => call(api.POST('/leagues/{id}/leave', path)), onSuccess: refresh });
  const rotate = useMutation({ mutationFn: () => call(api.POST('/leagues/{id}/code', path)), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: (userId: number) => call(api.DELETE('/leagues/{id}/members/{user_id}', { params: { path: { id: league.id, user_id: userId } } })),
    onSuccess: refresh,
  });
  const del = useMutation({
    mutationFn: () => call(api.DELETE('/leagues/{id}', path)),
    onSuccess: () => {
      invalidate(queryKeys.leagues.all);
      navigate('/leagues');
    },
  });
  const standing = useMutation({
    mutationFn: (on: boolean) => call(api.PATCH('/leagues/{id}', { ...path, body: { daily_standing: on } })),
    onSuccess: refresh,
  });
  const [copied, setCopied] = useState(false);
  const owner = league.owner.id === myId;
  const before = league.status === 'upcoming';
  const error = leave.error ?? rotate.error ?? remove.error ?? del.error ?? standing.error;
  // Once the league has ended there is nothing left to do here.
  if (league.status === 'ended' || league.status === 'final') return null;
  return (
    <section className="card" aria-label="Membership">
      {league.invite_code && before && (
        <div className="invite" data-testid="invite">
          <span className="small">Invite link:</span> <code data-testid="invite-link">{inviteLink(league.invite_code)}</code>{' '}
          <button
            type="button"
            className="btn btn-small"
            onClick={() =>
              void navigator.clipboard?.writeText(inviteLink(league.invite_code!)).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
          {owner && (
            <button type="button" className="btn btn-small" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
              New code
            </button>
          )}
        </div>
      )}
      {(league.status === 'upcoming' || league.status === 'running') && (
        <label className="small standing-toggle">
          <input
            type="checkbox"
            checked={league.daily_standing ?? false}
            disabled={standing.isPending}
            onChange={(e) => standing.mutate(e.target.checked)}
          />{' '}
          Send me the daily standing while it runs
        </label>
      )}
      <div className="chips">
        {!owner && (league.status === 'upcoming' || league.status === 'running') && (
          <button
            type="button"
            className="btn btn-small"
            disabled={leave.isPending}
            onClick={() => {
              if (before || window.confirm('After the start you stay on the board to the end. Leave anyway?')) leave.mutate();
            }}
          >
            Leave
          </button>
        )}
        {owner && before && (
          <button
            type="button"
            className="btn btn-small"
            disabled={del.isPending}
            onClick={() => window.confirm('Delete this league?') && del.mutate()}
          >
            Delete league
          </button>
        )}
      </div>
      {owner && before && league.members.length > 1 && (
        <details>
          <summary className="small">Remove a member</summary>
          <ul>
            {league.members
              .filter((m) => m.id !== myId)
              .map((m) => (
                <li key={m.id}>
                  {m.username}{' '}
                  <button type="button" className="btn btn-small" onClick={() => remove.mutate(m.id)}>
                    Remove
                  </button>
                </li>
              ))}
          </ul>
        </details>
      )}
      {error && <ErrorState error={error} />}
    </section>
  );
}

export function LeaguePage() {
  const id = Number(useParams().id);
  const me = useMe();
  const invalidate = useInvalidate();
  const league = useLeague(id, me.data?.id ?? null);
  const join = useMutation({
    mutationFn: () => call(api.POST('/leagues/{id}/join', { params: { path: { id } } })),
    onSuccess: () => invalidate(queryKeys.league.of(id), queryKeys.leagueBoard(id)),
  });
  if (!Number.isInteger(id) || id <= 0) return <ErrorState error={new Error('No such league')} />;
  if (league.isPending) return <Loading />;
  if (league.isError) return <ErrorState error={league.error} retry={() => void league.refetch()} />;
  const l = league.data;
  const myId = me.data?.id ?? null;
  return (
    <div className="league-page">
      <div className="page-head">
        <h1 data-testid="league-name">{l.name}</h1>
        <span className="tag" data-testid="league-status">
          {STATUS_LABELS[l.status]}
        </span>
      </div>
      {l.description && <p>{l.description}</p>}
      <p className="small" data-testid="league-rules">
        {rulesText(l.rules)}
      </p>
      <p className="muted small">
        {formatDateTime(l.starts_at)} → {formatDateTime(l.ends_at)} · {l.member_count}/{l.member_limit} members ·{' '}
        {l.visibility === 'public' ? 'public' : 'private'} · owner {l.owner.username}
      </p>
      {l.status === 'final' && (
        <p className="small">
          The final board is in the verifiable record:{' '}
          <a href={`/leagues/${l.id}/proof`} data-testid="league-proof">
            its proof
          </a>{' '}
          (check it with <code>npm run verify-log</code>).
        </p>
      )}
      {myId !== null && l.is_member && <Membership league={l} myId={myId} />}
      {myId !== null && !l.is_member && l.visibility === 'public' && l.status === 'upcoming' && (
        <div className="card">
          <button type="button" className="btn btn-primary" disabled={join.isPending} onClick={() => join.mutate()}>
            Join this league
          </button>
          {join.isError && <LimitMessage error={join.error} />}
        </div>
      )}
      {myId === null && l.visibility === 'public' && l.status === 'upcoming' && (
        <p className="small">
          <Link to={`/login?next=${encodeURIComponent(`/leagues/${l.id}`)}`}>Log in</Link> or{' '}
          <Link to={`/register?next=${encodeURIComponent(`/leagues/${l.id}`)}`}>sign up</Link> to join.
        </p>
      )}
      <Board id={id} myId={myId} scoring={l.rules.scoring} />
      <Feed id={id} />
    </div>
  );
}
