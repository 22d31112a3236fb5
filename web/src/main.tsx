import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { ApiError } from './api/client';
import { Home, Layout, RequireAuth } from './components/layout';
import { LoginPage, RegisterPage } from './pages/auth';
import { BetPage } from './pages/bet';
import { FeedPage } from './pages/feed';
import { HistoryPage } from './pages/history';
import { LeaderboardPage } from './pages/leaderboard';
import { MarketsPage } from './pages/markets';
import { NotFoundPage } from './pages/not-found';
import { NotificationsPage } from './pages/notifications';
import { BillingReturnPage, PlansPage } from './pages/plans';
import { PortfolioPage } from './pages/portfolio';
import { ProfilePage } from './pages/profile';
import { RankingsPage } from './pages/rankings';
import { SettingsPage } from './pages/settings';
import './styles.css';

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
        { index: true, element: <Home /> },
        { path: 'login', element: <LoginPage /> },
        { path: 'register', element: <RegisterPage /> },
        { path: 'leaderboard', element: <LeaderboardPage /> },
        { path: 'rankings', element: <RankingsPage /> },
        { path: 'user/:id', element: <ProfilePage /> },
        { path: 'bet/:id', element: <BetPage /> },
        { path: 'plans', element: <PlansPage /> },
        {
          element: <RequireAuth />,
          children: [
            { path: 'markets', element: <MarketsPage /> },
            { path: 'portfolio', element: <PortfolioPage /> },
            { path: 'history', element: <HistoryPage /> },
            { path: 'feed', element: <FeedPage /> },
            { path: 'notifications', element: <NotificationsPage /> },
            { path: 'settings', element: <SettingsPage /> },
            { path: 'billing/*', element: <BillingReturnPage /> },
          ],
        },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  // A build's base is './' and the service names the app's path in <base href>
  // (one build serves any WEB_URL); the dev server's base is already a path.
  { basename: new URL(import.meta.env.BASE_URL, document.baseURI).pathname.replace(/\/$/, '') },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
