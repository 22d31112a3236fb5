import { Link } from 'react-router-dom';
import type { FeedItem } from '../api/client';
import { useFeed } from '../api/queries';
import { DirectionTag, Gain, StatusTag } from '../components/gain';
import { Pager } from '../components/history-table';
import { Empty, ErrorState, Loading } from '../components/status';
import { SuggestedTraders, TraderSearch } from '../components/trader-search';
import { TailFadeHint } from '../components/hint';
import { TailFade } from '../components/tail-fade';
import { ThesisView } from '../components/thesis';
import { formatDateTime, formatQuote } from '../lib/format';
import { PAGE_SIZE, useOffset } from '../lib/paging';

export function FeedPage() {
  return (
    <>
      <h1>Feed</h1>
      <TraderSearch />
      <Feed />
    </>
  );
}

function Feed() {
  const [offset, setOffset] = useOffset();
  const feed = useFeed(offset);
  return (
    <section aria-labelledby="feed-heading">
      <h2 id="feed-heading">Activity of traders you follow</h2>
      {feed.isPending && <Loading />}
      {feed.isError && <ErrorState error={feed.error} retry={() => void feed.refetch()} />}
      {feed.data && feed.data.length === 0 && offset === 0 && (
        <>
          <Empty>Nothing yet. Follow traders (search above or from the leaderboard) to see their bets here.</Empty>
          <SuggestedTraders />
        </>
      )}
      {feed.data && feed.data.length > 0 && (
        <>
          {feed.data.some((item) => item.status === 'OPEN') && <TailFadeHint />}
          <ul className="feed" data-testid="feed-list">
            {feed.data.map((item) => (
              <FeedEntry key={`${item.id}-${item.status}`} item={item} />
            ))}
          </ul>
          <Pager offset={offset} limit={PAGE_SIZE} total={null} count={feed.data.length} onChange={setOffset} />
        </>
      )}
    </section>
  );
}

function FeedEntry({ item }: { item: FeedItem }) {
  const open = item.status === 'OPEN';
  return (
    <li className="feed-item">
      <div className="feed-line">
        <Link to={`/user/${item.user_id}`} className="strong">
          {item.username}
        </Link>{' '}
        <span className="muted">{open ? 'opened' : item.status === 'CLOSED' ? 'closed' : 'cancelled'}</span>{' '}
        <DirectionTag direction={item.direction} />{' '}
        <Link to={`/bet/${item.id}`} className="strong">
          {item.ticker}
        </Link>
        <StatusTag status={item.status} />
      </div>
      <div className="feed-meta">
        <span>
          entry <span className="num">{formatQuote(item.entry_price)}</span>
        </span>
        <span>
          {open ? 'now' : 'exit'} <span className="num">{formatQuote(item.exit_price)}</span>
        </span>
        <Gain value={item.percentage_gain} />
        <span className="muted">{formatDateTime(open ? item.entry_date : item.exit_date)}</span>
      </div>
      <ThesisView bet={item} />
      {open && <TailFade betId={item.id} ticker={item.ticker} direction={item.direction} />}
    </li>
  );
}
