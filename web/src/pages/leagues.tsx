// Leagues: the caller's leagues and public ones open to join, and the form
// that creates one (docs/leagues.md).
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, call, type Schemas } from '../api/client';
import { useInvalidate, useLeagues, useMe } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { Field } from '../components/field';
import { Empty, ErrorState, LimitMessage, Loading } from '../components/status';
import { formatDateTime } from '../lib/format';

export type LeagueSummary = Schemas['LeagueSummary'];
type Rules = Schemas['LeagueRules'];

const PAGE = 20;

export const INSTRUMENT_LABELS: Record<Rules['instruments'], string> = {
  all: 'All instruments',
  stocks: 'Stocks and ETFs only',
  crypto: 'Crypto only',
};
export const SCORING_LABELS: Record<Rules['scoring'], string> = {
  gain: 'Summed gain',
  skill: 'Skill against the market',
};
export const STATUS_LABELS: Record<LeagueSummary['status'], string> = {
  upcoming: 'Starts soon',
  running: 'Running',
  ended: 'Ended, settling',
  final: 'Final',
};

/** The rules in one sentence, as the league page and the invite link show them. */
export function rulesText(r: Rules): string {
  const min = r.min_closed_bets > 1 ? `, ranked from ${r.min_closed_bets} counted bets` : '';
  return `${INSTRUMENT_LABELS[r.instruments]} · ${SCORING_LABELS[r.scoring]}${min}`;
}

export function LeagueCard({ league }: { league: LeagueSummary }) {
  return (
    <li className="card league-card" data-testid="league-card">
      <div className="page-head">
        <h3>
          <Link to={`/leagues/${league.id}`}>{league.name}</Link>
        </h3>
        <span className="tag">{STATUS_LABELS[league.status]}</span>
      </div>
      <p className="muted small">
        {league.visibility === 'public' ? 'Public' : 'Private'} · {league.member_count}/{league.member_limit} members · by {league.owner.username}
      </p>
      <p className="small">{rulesText(league.rules)}</p>
      <p className="muted small">
        {formatDateTime(league.starts_at)} → {formatDateTime(league.ends_at)}
      </p>
    </li>
  );
}

function toLocalInput(t: number): string {
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function CreateLeagueForm({ onDone }: { onDone: () => void }) {
  const navigate = useNavigate();
  const invalidate = useInvalidate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [startsAt, setStartsAt] = useState(() => toLocalInput(Date.now() + 3_600_000));
  const [endsAt, setEndsAt] = useState(() => toLocalInput(Date.now() + 8 * 86_400_000));
  const [visibility, setVisibility] = useState<'private' | 'public'>('private');
  const [memberLimit, setMemberLimit] = useState('20');
  const [instruments, setInstruments] = useState<Rules['instruments']>('all');
  const [scoring, setScoring] = useState<Rules['scoring']>('gain');
  const [minClosed, setMinClosed] = useState('1');
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/leagues', {
          body: {
            name: name.trim(),
            description: description.trim(),
            starts_at: new Date(startsAt).toISOString(),
            ends_at: new Date(endsAt).toISOString(),
            visibility,
            member_limit: Number(memberLimit),
            rules: { instruments, scoring, min_closed_bets: Number(minClosed) },
          },
        }),
      ),
    onSuccess: (league) => {
      invalidate(queryKeys.leagues.all);
      onDone();
      navigate(`/leagues/${league.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Create a league" data-testid="league-form">
      <h2>New league</h2>
      <Field label="Name" name="name" required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />
      <Field label="Description" name="description" maxLength={1000} value={description} onChange={(e) => setDescription(e.target.value)} />
      <div className="league-form-row">
        <Field label="Starts" name="starts_at" type="datetime-local" required value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
        <Field
          label="Ends"
          name="ends_at"
          type="datetime-local"
          required
          value={endsAt}
          onChange={(e) => setEndsAt(e.target.value)}
          hint="At most one year after the start"
        />
      </div>
      <div className="league-form-row">
        <label className="field">
          <span>Who may join</span>
          <select name="visibility" value={visibility} onChange={(e) => setVisibility(e.target.value as 'private' | 'public')}>
            <option value="private">Private: with the invite link</option>
            <option value="public">Public: anyone, until the start</option>
          </select>
        </label>
        <Field
          label="Members at most"
          name="member_limit"
          type="number"
          min={2}
          max={1000}
          value={memberLimit}
          onChange={(e) => setMemberLimit(e.target.value)}
        />
      </div>
      <fieldset className="league-rules">
        <legend>Rules (fixed once the league starts)</legend>
        <label className="field">
          <span>What counts</span>
          <select name="instruments" value={instruments} onChange={(e) => setInstruments(e.target.value as Rules['instruments'])}>
            {Object.entries(INSTRUMENT_LABELS).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Scoring</span>
          <select name="scoring" value={scoring} onChange={(e) => setScoring(e.target.value as Rules['scoring'])}>
            {Object.entries(SCORING_LABELS).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <Field
          label="Counted bets to be ranked"
          name="min_closed_bets"
          type="number"
          min={0}
          max={1000}
          value={minClosed}
          onChange={(e) => setMinClosed(e.target.value)}
          hint="Closed bets, and bets still open at the end (marked at the end's price)"
        />
      </fieldset>
      {create.isError && <LimitMessage error={create.error} />}
      <button type="submit" className="btn btn-primary" disabled={create.isPending || name.trim() === ''}>
        {create.isPending ? 'Creating…' : 'Create league'}
      </button>
    </form>
  );
}

export function LeaguesPage() {
  const me = useMe();
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const leagues = useLeagues(me.data?.id ?? null, offset, PAGE);
  const data = leagues.data;
  const mine = data?.leagues.filter((l) => l.is_member) ?? [];
  const open = data?.leagues.filter((l) => !l.is_member) ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Leagues</h1>
        {me.data && !creating && (
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New league
          </button>
        )}
      </div>
      <p className="muted small">
        Compete with friends, a class or a club over a fixed period: the same bets, ranked among the members, by rules fixed at the start.
      </p>
      {creating && <CreateLeagueForm onDone={() => setCreating(false)} />}
      {leagues.isPending && <Loading />}
      {leagues.isError && <ErrorState error={leagues.error} retry={() => void leagues.refetch()} />}
      {data && me.data && (
        <section aria-label="Your leagues">
          <h2>Your leagues</h2>
          {mine.length === 0 ? (
            <Empty>You are in no league yet. Create one, open an invite link, or join a public one below.</Empty>
          ) : (
            <ul className="league-list" data-testid="my-leagues">
              {mine.map((l) => (
                <LeagueCard key={l.id} league={l} />
              ))}
            </ul>
          )}
        </section>
      )}
      {data && (
        <section aria-label="Public leagues open to join">
          <h2>Open to join</h2>
          {open.length === 0 ? (
            <Empty>No public league is open to join right now.</Empty>
          ) : (
            <ul className="league-list" data-testid="open-leagues">
              {open.map((l) => (
                <LeagueCard key={l.id} league={l} />
              ))}
            </ul>
          )}
        </section>
      )}
      {data && data.total > PAGE && (
        <nav className="chips" aria-label="Pages">
          <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <button type="button" className="btn btn-small" disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
