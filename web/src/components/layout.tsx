import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type MouseEvent, type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api, call, type User } from '../api/client';
import { useFollowing, useMe, usePortfolio, useUnreadNotices } from '../api/queries';
import { usePageHeading } from '../lib/page-heading';
import { ErrorState, Loading } from './status';

interface NavItem {
  to: string;
  label: string;
  auth: boolean;
}

/** Markets and Plans stand alone; the rest is grouped so the bar keeps one line at 1280 px beside a 30-character name. */
const NAV_GROUPS: { label: string; items: NavItem[] }[] = [
  {
    label: 'Trade',
    items: [
      { to: '/portfolio', label: 'Portfolio', auth: true },
      { to: '/history', label: 'History', auth: true },
      { to: '/alerts', label: 'Alerts', auth: true },
    ],
  },
  {
    label: 'Community',
    items: [
      { to: '/feed', label: 'Feed', auth: true },
      { to: '/people', label: 'People', auth: true },
      { to: '/leaderboard', label: 'Leaderboard', auth: false },
      { to: '/rankings', label: 'Rankings', auth: false },
      { to: '/leagues', label: 'Leagues', auth: false },
    ],
  },
];

const navClass = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-link active' : 'nav-link');

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
  // On a wide screen one group at a time shows its links; a navigation closes it as it folds the phone's menu.
  const [group, setGroup] = useState<{ label: string; at: string } | null>(null);
  const openGroup = group?.at === pathname ? group.label : null;
  const header = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!menuOpen && !openGroup) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      const groupButton = openGroup ? header.current?.querySelector<HTMLButtonElement>(`[data-group="${openGroup}"]`) : null;
      // A group's button is hidden on a phone, where its links show inside the open menu: Escape then folds the menu.
      if (groupButton && groupButton.offsetParent !== null) {
        setGroup(null);
        groupButton.focus();
        return;
      }
      if (!menuOpen) return;
      setMenuAt(null);
      // The link that had the focus is hidden with the menu: the focus goes back to the button that opened it.
      menuButton.current?.focus();
    };
    // A click or the focus elsewhere (Tab past its last link) closes the open group, as a menu does.
    const onOutside = (e: Event) => {
      if (!openGroup) return;
      const at = e.target instanceof Element ? e.target.closest('.nav-group') : null;
      if (at?.querySelector('[data-group]')?.getAttribute('data-group') !== openGroup) setGroup(null);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onOutside);
    document.addEventListener('focusin', onOutside);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onOutside);
      document.removeEventListener('focusin', onOutside);
    };
  }, [menuOpen, openGroup]);
  const groupProps = (label: string) => ({
    label,
    open: openGroup === label,
    toggle: () => setGroup(openGroup === label ? null : { label, at: pathname }),
  });

  return (
    <div className="shell">
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is an in-page link ("#main", as assistive technology and axe recognise one); the click keeps it on this page */}
      <a className="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header ref={header} className="topbar" data-menu={menuOpen ? 'open' : 'closed'}>
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
            <NavLink to="/markets" className={navClass}>
              Markets
            </NavLink>
            {NAV_GROUPS.map((g) => {
              const items = g.items.filter((n) => user || !n.auth);
              if (items.length === 0) return null;
              return (
                <NavGroup key={g.label} {...groupProps(g.label)}>
                  {items.map((n) => (
                    <NavLink key={n.to} to={n.to} className={navClass}>
                      {n.label}
                    </NavLink>
                  ))}
                </NavGroup>
              );
            })}
            <NavLink to="/plans" className={navClass}>
              Plans
            </NavLink>
            {user && (
              <NavLink to="/notifications" className={({ isActive }) => `${navClass({ isActive })} nav-bell`} title="Notices">
                <BellIcon />
                <span className="nav-bell-label">Notices</span>
                <UnreadCount enabled />
              </NavLink>
            )}
          </nav>
          <div className="account">
            {user ? (
              <NavGroup
                {...groupProps('Account')}
                extra={
                  <span className="whoami" data-testid="whoami">
                    {user.username}
                  </span>
                }
              >
                <NavLink to={`/user/${user.id}`} end className={navClass}>
                  Your profile
                </NavLink>
                <NavLink to="/settings" className={navClass}>
                  Settings
                </NavLink>
                <button type="button" className="nav-link nav-button" onClick={() => logout.mutate()} disabled={logout.isPending}>
                  Log out
                </button>
              </NavGroup>
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

/**
 * A disclosure: its button shows and hides a list of links (not an ARIA menu, so
 * Tab walks the links as on any page). On a phone the button is hidden and the links show under the group's name inside
 * the open Menu (styles.css). Escape, a click or the focus elsewhere close it (Layout).
 */
function NavGroup({
  label,
  open,
  toggle,
  extra,
  children,
}: {
  label: string;
  open: boolean;
  toggle: () => void;
  extra?: ReactNode;
  children: ReactNode;
}) {
  const id = `nav-group-${label.toLowerCase()}`;
  return (
    <div className="nav-group" data-open={open}>
      <button type="button" className="nav-link nav-group-button" data-group={label} aria-expanded={open} aria-controls={id} onClick={toggle}>
        {label}
        {extra && ' '}
        {extra}
        <span aria-hidden="true" className="nav-caret" />
      </button>
      <span className="nav-group-label">
        {label}
        {extra && ' '}
        {extra}
      </span>
      <div id={id} className="nav-sub">
        {children}
      </div>
    </div>
  );
}

function BellIcon() {
  return (
    <svg aria-hidden="true" className="bell-icon" viewBox="0 0 24 24" width="18" height="18" focusable="false">
      <path
        fill="currentColor"
        d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
      />
    </svg>
  );
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
