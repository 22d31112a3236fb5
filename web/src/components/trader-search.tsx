// Finding people: a trader's score, trades and followers in one line, the
// username search with that line on each result, and traders to follow from
// the ranked board (for an empty feed).
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useFollowing, useMe, useTopTraders, useTraderStats, useUserSearch } from '../api/queries';
import { countOf } from '../lib/format';
import { useDebounced } from '../lib/use-debounced';
import { Field } from './field';
import { FollowButton } from './follow-button';
import { Gain } from './gain';
import { Empty, ErrorState, Loading } from './status';

/** Score (the sum of ranked gains, as the ranked board's), ranked trades and followers, from GET /user/{id}/stats. */
export function TraderSummary({ userId }: { userId: number }) {
  const stats = useTraderStats(userId);
  if (!stats.data) return <span className="muted small">{stats.isError ? 'statistics unavailable' : '…'}</span>;
  const s = stats.data;
  return (
    <span className="trader-summary small" data-testid="trader-summary">
      <span className="muted">score</span> <Gain value={s.total_gain} />
      <span className="muted">
        {' '}
        · {countOf(s.ranked_trades, 'ranked trade')} · {countOf(s.followers, 'follower')}
      </span>
    </span>
  );
}

/** One trader: name, summary, and Follow for a signed-in caller other than them. */
function TraderRow({ id, username, me }: { id: number; username: string; me: number | null }) {
  return (
    <li className="list-row trader-row">
      <span>
        <Link to={`/user/${id}`} className="strong">
          {username}
        </Link>
        <br />
        <TraderSummary userId={id} />
      </span>
      {me !== null && id !== me && <FollowButton userId={id} username={username} />}
    </li>
  );
}

/** The username search (GET /users/search, signed in), each result with its score, trades and followers. */
export function TraderSearch({ headingLevel = 2 }: { headingLevel?: 1 | 2 }) {
  const me = useMe();
  const [q, setQ] = useState('');
  const term = useDebounced(q.trim(), 300);
  const results = useUserSearch(term);
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  return (
    <section className="card" aria-labelledby="search-heading">
      <Heading id="search-heading">Find traders</Heading>
      <search>
        <Field
          label="Username"
          type="search"
          name="q"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder="Part of a username"
          autoComplete="off"
        />
      </search>
      {term && results.isPending && <Loading label="Searching…" />}
      {results.isError && <ErrorState error={results.error} />}
      {term && results.data && results.data.length === 0 && <Empty>No trader matches “{term}”.</Empty>}
      {results.data && results.data.length > 0 && (
        <ul className="list" data-testid="search-results">
          {results.data.map((u) => (
            <TraderRow key={u.id} id={u.id} username={u.username} me={me.data?.id ?? null} />
          ))}
        </ul>
      )}
    </section>
  );
}

const SUGGESTED = 5;

/** Traders to follow: the ranked board's leaders the caller does not follow yet. */
export function SuggestedTraders({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const me = useMe();
  const following = useFollowing();
  const board = useTopTraders(SUGGESTED + 10);
  const myId = me.data?.id ?? null;
  const followed = new Set(following.data ?? []);
  const leaders = (board.data ?? []).filter((u) => u.id !== myId && !followed.has(u.id)).slice(0, SUGGESTED);
  if (board.isPending || following.isPending) return <Loading label="Finding traders to follow…" />;
  if (board.isError) return <ErrorState error={board.error} retry={() => void board.refetch()} />;
  if (leaders.length === 0) return null;
  return (
    <section aria-labelledby="suggested-heading" data-testid="suggested-traders">
      <Heading id="suggested-heading">Traders to follow</Heading>
      <p className="muted small">The ranked board's leaders: each bet counts from its committed price, once its cancel window has ended.</p>
      <ul className="list">
        {leaders.map((u) => (
          <TraderRow key={u.id} id={u.id} username={u.username} me={myId} />
        ))}
      </ul>
    </section>
  );
}
