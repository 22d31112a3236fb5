import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { api, call, callWrite } from '../api/client';
import { useChatStatus, useInvalidate, useNotifications } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { Pager } from '../components/history-table';
import { Empty, ErrorState, Loading } from '../components/status';
import { formatDateTime } from '../lib/format';
import { PAGE_SIZE, useOffset } from '../lib/paging';

export function NotificationsPage() {
  return (
    <>
      <h1>Notices</h1>
      <ChatLink />
      <NoticeList />
    </>
  );
}

function ChatLink() {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const linkCode = useMutation({
    mutationFn: () => callWrite(keys.keyFor('link-code'), (header) => api.POST('/chat/link-code', { params: { header } })),
    onSettled: () => keys.settled('link-code'),
  });
  const waiting = linkCode.isSuccess;
  const status = useChatStatus(waiting);
  const unlink = useMutation({
    mutationFn: () => call(api.POST('/chat/unlink')),
    onSuccess: () => {
      linkCode.reset();
      invalidate(queryKeys.chatStatus);
    },
  });
  const linked = status.data?.linked === true;

  return (
    <section className="card" aria-labelledby="chat-heading">
      <h2 id="chat-heading">Telegram</h2>
      {status.isPending && <Loading />}
      {status.isError && <ErrorState error={status.error} retry={() => void status.refetch()} />}
      {status.data && linked && (
        <>
          <p className="alert alert-ok" role="status" data-testid="chat-linked">
            Linked: you get a message when a trader you follow opens or cancels a bet, and when one of your price alerts fires.
          </p>
          <button type="button" className="btn" onClick={() => unlink.mutate()} disabled={unlink.isPending}>
            Unlink
          </button>
        </>
      )}
      {status.data && !linked && !waiting && (
        <>
          <p>Link your Telegram account to get a message when a trader you follow opens a bet or one of your price alerts fires.</p>
          <button type="button" className="btn btn-primary" onClick={() => linkCode.mutate()} disabled={linkCode.isPending}>
            Link Telegram
          </button>
        </>
      )}
      {status.data && !linked && waiting && (
        <div data-testid="chat-code">
          <p>Send this code to the bot, or open the link. It works once, for 10 minutes.</p>
          <p className="code num">
            <output aria-label="Link code">{linkCode.data.code}</output>
          </p>
          {linkCode.data.deep_link && (
            <p>
              <a href={linkCode.data.deep_link} target="_blank" rel="noopener noreferrer" className="btn btn-primary">
                Open the link
              </a>
            </p>
          )}
          <p className="muted" role="status">
            Waiting for the link to be confirmed…
          </p>
        </div>
      )}
      {linkCode.isError && <ErrorState error={linkCode.error} />}
      {unlink.isError && <ErrorState error={unlink.error} />}
    </section>
  );
}

/** A notice's link, named by what it opens: twenty links all named "See the bet" would be one name for twenty bets. */
function NoticeLink({ link }: { link: string }) {
  const bet = /^bet\/(\d+)$/.exec(link)?.[1];
  return (
    <Link to={`/${link}`}>
      {bet ? (
        <>
          See the bet<span className="sr-only"> #{bet}</span>
        </>
      ) : (
        'Open'
      )}
    </Link>
  );
}

function NoticeList() {
  const queryClient = useQueryClient();
  const [offset, setOffset] = useOffset();
  const notices = useNotifications(offset);
  const markRead = useMutation({
    mutationFn: (until: string) => call(api.POST('/notifications/read', { body: { until } })),
    onSuccess: (state) => queryClient.setQueryData(queryKeys.notifications.unread, state),
  });
  // Seen means read: the newest notice on screen moves the marker (never back, so a repeat changes nothing).
  const newestUnread = notices.data?.find((n) => !n.read)?.created_at ?? null;
  const { mutate } = markRead;
  useEffect(() => {
    if (newestUnread !== null) mutate(newestUnread);
  }, [newestUnread, mutate]);

  return (
    <section aria-labelledby="notices-heading">
      <h2 id="notices-heading">Your notices</h2>
      <p className="muted">Bets opened and cancelled by the traders you follow, since you followed them, and notices about your account.</p>
      {notices.isPending && <Loading />}
      {notices.isError && <ErrorState error={notices.error} retry={() => void notices.refetch()} />}
      {notices.data && notices.data.length === 0 && offset === 0 && <Empty>No notices yet. Follow traders to hear about their bets.</Empty>}
      {notices.data && notices.data.length > 0 && (
        <>
          <ul className="list" data-testid="notices">
            {notices.data.map((n) => (
              <li key={n.id} className={n.read ? 'list-row notice' : 'list-row notice notice-unread'}>
                <div>
                  <p className="notice-text">
                    {!n.read && <span className="badge badge-info">New</span>} {n.text}
                  </p>
                  <small className="muted">{formatDateTime(n.created_at)}</small>
                </div>
                {n.link !== null && <NoticeLink link={n.link} />}
              </li>
            ))}
          </ul>
          <Pager offset={offset} limit={PAGE_SIZE} total={null} count={notices.data.length} onChange={setOffset} />
        </>
      )}
    </section>
  );
}
