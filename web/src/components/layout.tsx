import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type MouseEvent, Suspense, useEffect, useRef, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api, call, type User } from '../api/client';
import { useFollowing, useMe, usePortfolio, useUnreadNotices } from '../api/queries';
import { usePageHeading } from '../lib/page-heading';
import { ErrorState, Loading } from './status';

const NAV = [
  { to: '/markets', label: 'Markets', auth: false },
  { to: '/portfolio', label: 'Portfolio', auth: true },
  { to: '/history', label: 'History', auth: true },
  { to: '/feed', label: 'Feed', auth: true },
  { to: '/alerts', label: 'Alerts', auth: true },
  { to: '/people', label: 'People', auth: true },
  { to: '/leaderboard', label: 'Leaderboard', auth: false },
  { to: '/rankings', label: 'Rankings', auth: false },
  { to: '/leagues', label: 'Leagues', auth: false },
  { to: '/notifications', label: 'Notices', auth: true },
  { to: '/plans', label: 'Plans', auth: false },
];

/** Open bets used / bet_capacity and follows used / follow_capacity. */
/** `label` names the region: a page that shows them again (after a plan change) names its own copy apart from the bar's. */
export function Capacities({ user, label = 'Capacities' }: { user: User; label?: string }) {
  const portfolio = usePortfolio();
  const following = useFollowing();
  const used = (q: { data?: unknown[]; isError: boolean }) => (q.data ? String(q.data.length) : q.isError ? '?' : '…');
  return (
    <section className="capacities" aria-label={label}>
      <span data-testid="bet-capacity">
        Open bets <strong className="num">{used(portfolio)}</strong>/<strong className="num">{user.bet_capacity}</strong>
      </span>
      <span data-testid="follow-capacity">
        Follows <strong className="num">{used(following)}</strong>/<strong className="num">{user.follow_capacity}</strong>
      </span>
    </section>
  );
}

export function Layout() {
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const logout = useMutation({
    mutationFn: () => call(api.POST('/logout')),
    onSuccess: () => {
      queryClient.clear();
      navigate('/login');
    },
  });
  const user = me.data ?? null;
  usePageHeading('main');
  // On a phone the navigation folds into one bar with a menu button (styles.css); a navigation folds it again.
  const { pathname } = useLocation();
  const [menuAt, setMenuAt] = useState<string | null>(null);
  const menuOpen = menuAt === pathname;
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuAt(null);
      // The link that had the focus is hidden with the menu: the focus goes back to the button that opened it.
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <div className="shell">
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is an in-page link ("#main", as assistive technology and axe recognise one); the click keeps it on this page */}
      <a className="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header className="topbar" data-menu={menuOpen ? 'open' : 'closed'}>
        <Link to="/" className="brand">
          Paper Bets
        </Link>
        <button
          ref={menuButton}
          type="button"
          className="btn btn-small menu-button"
          aria-expanded={menuOpen}
          aria-controls="site-menu"
          onClick={() => setMenuAt(menuOpen ? null : pathname)}
        >
          <span aria-hidden="true" className="menu-icon" />
          Menu
        </button>
        <div id="site-menu" className="menu-panel">
          <nav aria-label="Main" className="nav">
            {NAV.filter((n) => user || !n.auth).map((n) => (
              <NavLink key={n.to} to={n.to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
                {n.label}
                {n.to === '/notifications' && <UnreadCount enabled={user !== null} />}
              </NavLink>
            ))}
          </nav>
          <div className="account">
            {user ? (
              <>
                <Link to={`/user/${user.id}`} className="whoami">
                  {user.username}
                </Link>
                <NavLink to="/settings" className={({ isActive }) => `btn btn-small ${isActive ? 'btn-active' : ''}`}>
                  Settings
                </NavLink>
                <button type="button" className="btn btn-small" onClick={() => logout.mutate()} disabled={logout.isPending}>
                  Log out
                </button>
              </>
            ) : (
              <>
                <Link to="/login" className="btn btn-small">
                  Log in
                </Link>
                <Link to="/register" className="btn btn-small btn-primary">
                  Sign up
                </Link>
              </>
            )}
          </div>
        </div>
      </header>
      {user && <Capacities user={user} />}
      <main id="main" className="content" tabIndex={-1}>
        {me.isError ? (
          <ErrorState error={me.error} retry={() => void me.refetch()} />
        ) : (
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}

/**
 * "#main" resolves against the page's <base href> (the app's root), so the
 * browser would leave the page for the front door: the link moves the focus
 * to the content itself instead, staying on the page.
 */
function skipToContent(e: MouseEvent<HTMLAnchorElement>) {
  const main = document.getElementById('main');
  if (!main) return;
  e.preventDefault();
  main.focus();
  main.scrollIntoView();
}

/** The unread notices beside "Notices" in the navigation. */
function UnreadCount({ enabled }: { enabled: boolean }) {
  const unread = useUnreadNotices(enabled).data?.unread ?? 0;
  if (!enabled || unread === 0) return null;
  return (
    <span className="nav-count num">
      <span data-testid="unread-count">{unread > 99 ? '99+' : unread}</span>
      <span className="sr-only"> unread</span>
    </span>
  );
}

/** Pages that need a session send visitors to log in, and back afterwards. */
export function RequireAuth() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading />;
  if (me.isError) return null;
  if (!me.data) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}
