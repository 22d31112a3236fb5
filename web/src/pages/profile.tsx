import { useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { useMe, useProfile, useUserRecord } from '../api/queries';
import { FollowButton } from '../components/follow-button';
import { FilteredHistory, Pager } from '../components/history-table';
import { PORTFOLIO_COLUMNS, PortfolioCells } from '../components/portfolio-cells';
import { Empty, ErrorState, Loading } from '../components/status';
import { TableHead } from '../components/table-cells';
import { TraderSummary } from '../components/trader-search';
import { TraderStats } from '../components/trader-stats';
import { countOf } from '../lib/format';
import { PAGE_SIZE, useOffset } from '../lib/paging';
import { NotFoundPage } from './not-found';

export function ProfilePage() {
  const { id } = useParams();
  const userId = Number(id);
  if (!Number.isInteger(userId) || userId <= 0) return <NotFoundPage />;
  return <Profile key={userId} userId={userId} />;
}

function Profile({ userId }: { userId: number }) {
  const me = useMe();
  const [offset, setOffset] = useOffset();
  const profile = useProfile(userId, offset);
  if (profile.isError && profile.error instanceof ApiError && profile.error.status === 404) return <GoneProfile userId={userId} />;
  if (profile.isPending || profile.isError) {
    return (
      <>
        <h1>Trader profile</h1>
        {profile.isError ? <ErrorState error={profile.error} retry={() => void profile.refetch()} /> : <Loading />}
      </>
    );
  }
  const { user, portfolio, history, history_total } = profile.data;
  const self = me.data?.id === user.id;
  return (
    <>
      <div className="page-head">
        <h1>{user.username}</h1>
        {me.data && !self && <FollowButton userId={user.id} username={user.username} />}
        {self && <span className="muted">This is you</span>}
      </div>
      <p>
        <TraderSummary userId={user.id} />
      </p>
      <h2 id="statistics">Statistics</h2>
      <TraderStats userId={user.id} self={self} />
      <h2>Open bets</h2>
      {portfolio.length === 0 ? (
        <Empty>No open bets.</Empty>
      ) : (
        <table className="table responsive compact" data-testid="profile-portfolio">
          <TableHead columns={PORTFOLIO_COLUMNS} />
          <tbody>
            {portfolio.map((b) => (
              <tr key={b.id}>
                <PortfolioCells bet={b} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>
        History <span className="muted num">({history_total})</span>
      </h2>
      {history.length === 0 ? (
        <Empty>No closed bets yet.</Empty>
      ) : (
        <>
          <FilteredHistory bets={history} testId="profile-history" />
          <Pager offset={offset} limit={PAGE_SIZE} total={history_total} count={history.length} onChange={setOffset} />
        </>
      )}
    </>
  );
}

/**
 * No such profile: either no such user, or a deleted account, whose bets stay
 * in the public record under its id only (GET /record/user answers for it).
 */
function GoneProfile({ userId }: { userId: number }) {
  const record = useUserRecord(userId, { retry: false });
  if (record.isPending) return <Loading />;
  if (record.isError) return <NotFoundPage />;
  const bets = record.data.bets;
  const closed = bets.filter((b) => b.status === 'CLOSED').length;
  return (
    <>
      <div className="page-head">
        <h1>Deleted account</h1>
        <span className="tag tag-status-cancelled">anonymous</span>
      </div>
      <p className="alert alert-info" role="status" data-testid="profile-deleted">
        This trader deleted their account. Their name and email are gone; their bets stay in the verifiable record under the anonymous id #{userId}.
      </p>
      <p className="muted">
        {countOf(bets.length, 'bet')} in the record, <span className="num">{closed}</span> of them closed, in{' '}
        {countOf(record.data.entries.length, 'chain entry', 'chain entries')}.
      </p>
    </>
  );
}
