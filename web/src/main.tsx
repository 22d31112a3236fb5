import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { ApiError } from './api/client';
import { Layout, RequireAuth } from './components/layout';
import { SignUpNotice } from './components/sign-up-notice';
import { LoginPage, RegisterPage } from './pages/auth';
import { HomePage } from './pages/home';
import { NotFoundPage } from './pages/not-found';
import './styles.css';

// Split by route: the front door and the log-in and sign-up pages load with the
// app; every other page is a chunk of its own, fetched when first shown, so
// the chart library (its own chunk, web/vite.config.ts) loads only with a chart.
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) => lazy(() => load().then((m) => ({ default: m[name] })));
const AlertsPage = page(() => import('./pages/alerts'), 'AlertsPage');
const BetPage = page(() => import('./pages/bet'), 'BetPage');
const FeedPage = page(() => import('./pages/feed'), 'FeedPage');
const HistoryPage = page(() => import('./pages/history'), 'HistoryPage');
const LeaderboardPage = page(() => import('./pages/leaderboard'), 'LeaderboardPage');
const LeaguesPage = page(() => import('./pages/leagues'), 'LeaguesPage');
const LeaguePage = page(() => import('./pages/league'), 'LeaguePage');
const LeagueJoinPage = page(() => import('./pages/league-join'), 'LeagueJoinPage');
const MarketsPage = page(() => import('./pages/markets'), 'MarketsPage');
const PeoplePage = page(() => import('./pages/people'), 'PeoplePage');
const NotificationsPage = page(() => import('./pages/notifications'), 'NotificationsPage');
const PlansPage = page(() => import('./pages/plans'), 'PlansPage');
const BillingReturnPage = page(() => import('./pages/plans'), 'BillingReturnPage');
const PortfolioPage = page(() => import('./pages/portfolio'), 'PortfolioPage');
const ProfilePage = page(() => import('./pages/profile'), 'ProfilePage');
const RankingsPage = page(() => import('./pages/rankings'), 'RankingsPage');
const ScoringPage = page(() => import('./pages/scoring'), 'ScoringPage');
const SettingsPage = page(() => import('./pages/settings'), 'SettingsPage');
const ForgotPasswordPage = page(() => import('./pages/password-reset'), 'ForgotPasswordPage');
const ResetPasswordPage = page(() => import('./pages/password-reset'), 'ResetPasswordPage');
const VerifyEmailPage = page(() => import('./pages/email-links'), 'VerifyEmailPage');
const ConfirmEmailPage = page(() => import('./pages/email-links'), 'ConfirmEmailPage');

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx or 501 will not change on retry; network blips and 5xx might.
      retry: (count, err) => count < 2 && !(err instanceof ApiError && (err.status < 500 || err.status === 501)),
      refetchOnWindowFocus: true,
      staleTime: 2000,
    },
  },
});

const router = createBrowserRouter(
  [
    {
      element: <Layout />,
      children: [
        {
          // After sign-up, the page the new account opens on says where the verification link went.
          element: <SignUpNotice />,
          children: [
            { index: true, element: <HomePage /> },
            { path: 'login', element: <LoginPage /> },
            { path: 'register', element: <RegisterPage /> },
            { path: 'forgot-password', element: <ForgotPasswordPage /> },
            { path: 'reset-password', element: <ResetPasswordPage /> },
            { path: 'verify-email', element: <VerifyEmailPage /> },
            { path: 'confirm-email', element: <ConfirmEmailPage /> },
            { path: 'leaderboard', element: <LeaderboardPage /> },
            { path: 'rankings', element: <RankingsPage /> },
            { path: 'scoring', element: <ScoringPage /> },
            { path: 'leagues', element: <LeaguesPage /> },
            { path: 'leagues/join/:code', element: <LeagueJoinPage /> },
            { path: 'leagues/:id', element: <LeaguePage /> },
            { path: 'user/:id', element: <ProfilePage /> },
            { path: 'bet/:id', element: <BetPage /> },
            { path: 'plans', element: <PlansPage /> },
            // Visitors look before they sign up: the directory and charts from the cached quotes (DESIGN), without the bet form.
            { path: 'markets', element: <MarketsPage /> },
            {
              element: <RequireAuth />,
              children: [
                { path: 'portfolio', element: <PortfolioPage /> },
                { path: 'history', element: <HistoryPage /> },
                { path: 'feed', element: <FeedPage /> },
                { path: 'alerts', element: <AlertsPage /> },
                { path: 'people', element: <PeoplePage /> },
                { path: 'notifications', element: <NotificationsPage /> },
                { path: 'settings', element: <SettingsPage /> },
                { path: 'billing/*', element: <BillingReturnPage /> },
              ],
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ],
  // A build's base is './' and the service names the app's path in <base href>
  // (one build serves any WEB_URL); the dev server's base is already a path.
  { basename: new URL(import.meta.env.BASE_URL, document.baseURI).pathname.replace(/\/$/, '') },
);

// The installable app's service worker (web/public/sw.js): the app's shell and
// static files offline, and Web Push notices. Registered after the page has
// loaded, so it never competes with the first visit's own requests.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register(new URL('sw.js', document.baseURI)).catch(() => undefined);
  });
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
