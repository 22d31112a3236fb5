import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api, call, type User } from '../api/client';
import { useMe } from '../lib/auth';
import { ErrorState, Loading } from './status';

const NAV = [
  { to: '/markets', label: 'Markets', auth: true },
  { to: '/portfolio', label: 'Portfolio', auth: true },
  { to: '/history', label: 'History', auth: true },
  { to: '/feed', label: 'Feed', auth: true },
  { to: '/leaderboard', label: 'Leaderboard', auth: false },
  { to: '/rankings', label: 'Rankings', auth: false },
  { to: '/notifications', label: 'Notices', auth: true },
  { to: '/plans', label: 'Plans', auth: false },
];

export function usePortfolio(enabled = true) {
  return useQuery({ queryKey: ['portfolio'], queryFn: () => call(api.GET('/portfolio')), refetchInterval: 5000, enabled });
}

export function useFollowing(enabled = true) {
  return useQuery({ queryKey: ['following'], queryFn: () => call(api.GET('/following')), enabled });
}

/** Open bets used / bet_capacity and follows used / follow_capacity. */
export function Capacities({ user }: { user: User }) {
  const portfolio = usePortfolio();
  const following = useFollowing();
  const used = (q: { data?: unknown[]; isError: boolean }) => (q.data ? String(q.data.length) : q.isError ? '?' : '…');
  return (
    <section className="capacities" aria-label="Capacities">
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

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Paper Bets
        </Link>
        <nav aria-label="Main" className="nav">
          {NAV.filter((n) => user || !n.auth).map((n) => (
            <NavLink key={n.to} to={n.to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
              {n.label}
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
      </header>
      {user && <Capacities user={user} />}
      <main id="main" className="content" tabIndex={-1}>
        {me.isError ? <ErrorState error={me.error} retry={() => void me.refetch()} /> : <Outlet />}
      </main>
    </div>
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

export function Home() {
  const me = useMe();
  const { search } = useLocation();
  // Checkout returns to the app's root with its outcome in the query.
  if (new URLSearchParams(search).has('checkout')) return <Navigate to={`/billing${search}`} replace />;
  if (me.isPending) return <Loading />;
  return <Navigate to={me.data ? '/portfolio' : '/login'} replace />;
}
