// The invite link (/leagues/join/{code}): anyone sees the league's name and
// rules; a visitor signs up or logs in and comes back here with ?join=1,
// which joins at once and lands in the league.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, Navigate, useParams, useSearchParams } from 'react-router-dom';
import { api, call } from '../api/client';
import { useInvalidate, useLeagueInvite, useMe } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { ErrorState, LimitMessage, Loading } from '../components/status';
import { formatDateTime } from '../lib/format';
import { rulesText, STATUS_LABELS } from './leagues';

export function LeagueJoinPage() {
  const code = useParams().code ?? '';
  const [params] = useSearchParams();
  const me = useMe();
  const invalidate = useInvalidate();
  const found = useLeagueInvite(code);
  const join = useMutation({
    mutationFn: () => call(api.POST('/leagues/join', { body: { code } })),
    onSuccess: () => invalidate(queryKeys.leagues.all),
  });
  const league = found.data?.leagues[0];
  const user = me.data ?? null;
  // Back from signing up or logging in: join once, as the visitor asked.
  const asked = useRef(false);
  useEffect(() => {
    if (params.get('join') === '1' && user && league && !league.is_member && !asked.current) {
      asked.current = true;
      join.mutate();
    }
  }, [params, user, league, join]);

  if (!/^[A-Za-z0-9]{6,32}$/.test(code)) return <ErrorState error={new Error('This invite link is not valid')} />;
  if (found.isPending || me.isPending) return <Loading />;
  if (found.isError) return <ErrorState error={found.error} retry={() => void found.refetch()} />;
  if (!league) return <ErrorState error={new Error('This invite link is not valid any more: ask for a new one')} />;
  if (join.isSuccess || (user && league.is_member)) return <Navigate to={`/leagues/${league.id}`} replace />;
  const back = `/leagues/join/${code}?join=1`;
  return (
    <div className="auth-card" data-testid="league-invite">
      <p className="muted small">You are invited to the league</p>
      <h1 data-testid="invite-name">{league.name}</h1>
      {league.description && <p>{league.description}</p>}
      <p className="small" data-testid="invite-rules">
        {rulesText(league.rules)}
      </p>
      <p className="muted small">
        {formatDateTime(league.starts_at)} → {formatDateTime(league.ends_at)} · {league.member_count}/{league.member_limit} members ·{' '}
        {STATUS_LABELS[league.status]}
      </p>
      {league.status !== 'upcoming' ? (
        <p className="alert alert-warn">This league has already started: it no longer takes members.</p>
      ) : user ? (
        <button type="button" className="btn btn-primary" disabled={join.isPending} onClick={() => join.mutate()} data-testid="invite-join">
          {join.isPending ? 'Joining…' : 'Join the league'}
        </button>
      ) : (
        <div className="chips">
          <Link className="btn btn-primary" to={`/register?next=${encodeURIComponent(back)}`} data-testid="invite-register">
            Sign up to join
          </Link>
          <Link className="btn" to={`/login?next=${encodeURIComponent(back)}`} data-testid="invite-login">
            Log in to join
          </Link>
        </div>
      )}
      {join.isError && <LimitMessage error={join.error} />}
    </div>
  );
}
