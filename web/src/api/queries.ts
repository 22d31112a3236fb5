// The app's reads: one hook per resource, each with its key from
// query-keys.ts, its request, and how fresh it stays (polling, paging). A
// page asks for data through these hooks only; writes stay beside the forms
// that send them and invalidate by the prefixes of query-keys.ts.
import { keepPreviousData, type QueryKey, type UseQueryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { LEADERBOARD_PAGE, PAGE_SIZE } from '../lib/paging';
import type { Board } from '../lib/scoring';
import type { Period } from '../lib/window-params';
import { fetchPriceHistory, type HistoryRange } from './charts';
import { ApiError, api, type BetDetail, call, type LeagueBoard, type MyStanding, type Schemas, type TraderStats, type User } from './client';
import { fetchInstrumentChart, searchInstruments } from './instruments';
import { queryKeys } from './query-keys';

/** What a caller may set besides the key and the request (for a resource read two ways). */
type Tweaks<T> = Omit<UseQueryOptions<T, Error, T, QueryKey>, 'queryKey' | 'queryFn'>;

/** A page of a list that grows while it is shown: polled, and the page before stays on screen while the next loads. */
const LIVE_PAGE = { refetchInterval: 15_000, placeholderData: keepPreviousData } as const;

/** Marks every query under each prefix stale; those on screen fetch again. */
export function useInvalidate() {
  const queryClient = useQueryClient();
  return useCallback(
    (...prefixes: readonly QueryKey[]) => {
      for (const queryKey of prefixes) void queryClient.invalidateQueries({ queryKey });
    },
    [queryClient],
  );
}

// The caller.

/**
 * The marker the server sets and clears with the session cookie (src/http/auth.ts):
 * readable here, unlike the HttpOnly session, and no secret. Without it the app
 * knows it has no session without asking, so an anonymous page makes no request
 * that answers 401; the server never trusts it, so a forged one costs one 401.
 */
const SESSION_MARKER = 'signed_in';

function hasSessionMarker(): boolean {
  return document.cookie.split(';').some((c) => c.trim() === `${SESSION_MARKER}=1`);
}

/** A session that ended on the server (expired, revoked): the marker goes too, so later pages do not ask again. */
function clearSessionMarker(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: one fixed name and no value to escape; the Cookie Store API is not in every browser (Firefox).
  document.cookie = `${SESSION_MARKER}=; Max-Age=0; Path=/; SameSite=Lax`;
}

/** The logged-in user, or null when there is no session (no marker, or 401). */
export function useMe() {
  return useQuery<User | null>({
    queryKey: queryKeys.me,
    queryFn: async () => {
      if (!hasSessionMarker()) return null;
      try {
        return await call(api.GET('/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) clearSessionMarker();
        if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
        throw err;
      }
    },
    staleTime: 30_000,
  });
}

export function usePortfolio(enabled = true) {
  return useQuery({ queryKey: queryKeys.portfolio, queryFn: () => call(api.GET('/portfolio')), refetchInterval: 5000, enabled });
}

export function useFollowing(enabled = true) {
  return useQuery({ queryKey: queryKeys.following, queryFn: () => call(api.GET('/following')), enabled });
}

export function useHistory(offset: number) {
  return useQuery({
    queryKey: queryKeys.history.page(offset),
    queryFn: () => call(api.GET('/history', { params: { query: { limit: PAGE_SIZE, offset } } })),
    placeholderData: keepPreviousData,
  });
}

/** The caller's public profile's first row, for its count of closed and cancelled bets. */
export function useHistoryTotal(userId: number) {
  return useQuery({
    queryKey: queryKeys.history.total(userId),
    queryFn: () => call(api.GET('/user/{user_id}/public', { params: { path: { user_id: userId }, query: { limit: 1, offset: 0 } } })),
    enabled: userId > 0,
  });
}

export function useStanding(minTrades: number | null, tweaks?: Tweaks<MyStanding>) {
  return useQuery({
    queryKey: queryKeys.leaderboard.standing(minTrades),
    queryFn: (): Promise<MyStanding> => call(api.GET('/me/standing', { params: { query: minTrades ? { min_trades: minTrades } : {} } })),
    ...tweaks,
  });
}

export function useMyEmail() {
  return useQuery({ queryKey: queryKeys.myEmail, queryFn: () => call(api.GET('/me/email')) });
}

export function useNoticeSettings() {
  return useQuery({ queryKey: queryKeys.noticeSettings, queryFn: () => call(api.GET('/me/notice-settings')) });
}

/** The unread count the navigation shows; the Notices page updates it when it marks notices read. */
export function useUnreadNotices(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.notifications.unread,
    queryFn: () => call(api.GET('/notifications/unread')),
    refetchInterval: 30_000,
    enabled,
  });
}

export function useNotifications(offset: number) {
  return useQuery({
    queryKey: queryKeys.notifications.page(offset),
    queryFn: () => call(api.GET('/notifications', { params: { query: { limit: PAGE_SIZE, offset } } })),
    ...LIVE_PAGE,
  });
}

/** While a link code is out (`waiting`), polls until the messaging side confirms the link. */
export function useChatStatus(waiting: boolean) {
  return useQuery({
    queryKey: queryKeys.chatStatus,
    queryFn: () => call(api.GET('/chat/status')),
    refetchInterval: (q) => (waiting && !q.state.data?.linked ? 2000 : false),
  });
}

/** An emailed link's token, sent once: a repeat would find it used up. */
export function useEmailLink(kind: 'verify' | 'confirm', token: string) {
  return useQuery({
    queryKey: queryKeys.emailLink(kind, token),
    queryFn: () =>
      call(
        kind === 'verify' ? api.GET('/email/verify', { params: { query: { token } } }) : api.GET('/email/confirm', { params: { query: { token } } }),
      ),
    enabled: token !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
}

export function usePlans() {
  return useQuery({ queryKey: queryKeys.plans, queryFn: () => call(api.GET('/api/pay/plans')) });
}

// Traders and their bets.

export function useFeed(offset: number) {
  return useQuery({
    queryKey: queryKeys.feed.page(offset),
    queryFn: () => call(api.GET('/feed', { params: { query: { limit: PAGE_SIZE, offset } } })),
    ...LIVE_PAGE,
  });
}

export function useUserSearch(term: string) {
  return useQuery({
    queryKey: queryKeys.userSearch(term),
    queryFn: () => call(api.GET('/users/search', { params: { query: { q: term } } })),
    enabled: term.length > 0,
  });
}

export function useProfile(userId: number, offset: number) {
  return useQuery({
    queryKey: queryKeys.profile(userId, offset),
    queryFn: () => call(api.GET('/user/{user_id}/public', { params: { path: { user_id: userId }, query: { limit: PAGE_SIZE, offset } } })),
    ...LIVE_PAGE,
  });
}

export function useTraderStats(userId: number) {
  return useQuery({
    queryKey: queryKeys.stats.of(userId),
    queryFn: (): Promise<TraderStats> => call(api.GET('/user/{user_id}/stats', { params: { path: { user_id: userId } } })),
    refetchInterval: 30_000,
  });
}

export function useBet(betId: number) {
  return useQuery({
    queryKey: queryKeys.bet.one(betId),
    queryFn: (): Promise<BetDetail> => call(api.GET('/bet/{bet_id}', { params: { path: { bet_id: betId } } })),
    enabled: Number.isInteger(betId) && betId > 0,
    refetchInterval: 10_000,
  });
}

// The verifiable record.

export function useUserRecord(userId: number, tweaks?: Tweaks<Schemas['UserRecord']>) {
  return useQuery({
    queryKey: queryKeys.record.user(userId),
    queryFn: () => call(api.GET('/record/user/{user_id}', { params: { path: { user_id: userId } } })),
    ...tweaks,
  });
}

/** A day's root as published on its own: a proof must reach that very root. */
export function useRecordDay(date: string | null) {
  return useQuery({
    queryKey: queryKeys.record.day(date),
    queryFn: () => call(api.GET('/record/days/{date}', { params: { path: { date: date! } } })),
    enabled: date !== null,
    staleTime: Infinity,
  });
}

export function useRecordHead() {
  return useQuery({ queryKey: queryKeys.record.head, queryFn: () => call(api.GET('/record/head')), staleTime: 60_000 });
}

/**
 * The bet's entries checked against the record and the day's root, in the
 * browser (`enabled` once both are here). The checker loads with the bet page,
 * not with the app.
 */
export function useRecordCheck(
  betId: number,
  userId: number,
  record: Schemas['UserRecord'] | undefined,
  dayRoot: string | undefined,
  enabled: boolean,
) {
  return useQuery({
    queryKey: queryKeys.record.check(betId, userId, record?.entries.at(-1)?.hash ?? null, record?.proof?.root ?? null, dayRoot ?? null),
    queryFn: async () => (await import('../lib/record-proof')).checkBetRecord(record!, betId, dayRoot),
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}

// Boards.

/**
 * A page of a board: the ranked one (GET /leaderboard/ranked) or SPEC's raw
 * one (GET /leaderboard). The first page is the plain top 100; later pages ask
 * for their offset.
 */
export function useLeaderboard(board: Board, period: Period | null, minTrades: number | null, offset: number) {
  const query = {
    ...(period ? { period } : {}),
    ...(minTrades ? { min_trades: minTrades } : {}),
    ...(offset > 0 ? { limit: LEADERBOARD_PAGE, offset } : {}),
  };
  return useQuery({
    queryKey: board === 'ranked' ? queryKeys.leaderboard.ranked(period, minTrades, offset) : queryKeys.leaderboard.page(period, minTrades, offset),
    queryFn: () => call(api.GET(board === 'ranked' ? '/leaderboard/ranked' : '/leaderboard', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

/** The ranked board's first `limit` rows, as the front door shows them. */
export function useTopTraders(limit: number) {
  return useQuery({
    queryKey: queryKeys.leaderboard.front(limit),
    queryFn: () => call(api.GET('/leaderboard/ranked', { params: { query: { limit } } })),
    refetchInterval: 30_000,
  });
}

export function useRankings(period: Period, minTrades: number, me: number | null) {
  return useQuery({
    queryKey: queryKeys.rankings.page(period, minTrades, me),
    queryFn: () => call(api.GET('/rankings', { params: { query: { period, min_trades: minTrades } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });
}

// Markets and prices.

export function useInstruments(q: string, limit: number) {
  return useQuery({
    queryKey: queryKeys.instruments(q),
    queryFn: () => searchInstruments(q, limit),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
    retry: false,
  });
}

/** One answer for the headline and the chart: the chart's last point is the quote shown above it. */
export function useInstrumentChart(ticker: string, range: HistoryRange) {
  return useQuery({
    queryKey: queryKeys.instrument(ticker, range),
    queryFn: () => fetchInstrumentChart(ticker, range),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
    retry: false,
  });
}

/** The price now, fetched only while `enabled` (a question about to open a bet at it) and never served stale. */
export function usePrice(ticker: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.price(ticker),
    queryFn: () => call(api.GET('/price/{ticker}', { params: { path: { ticker } } })),
    enabled,
    staleTime: 0,
    retry: false,
  });
}

export function usePriceHistory(ticker: string, range: HistoryRange) {
  return useQuery({
    queryKey: queryKeys.priceHistory(ticker, range),
    queryFn: () => fetchPriceHistory(ticker, range),
    refetchInterval: 30_000,
    retry: false,
  });
}

// Leagues.

export function useLeagues(me: number | null, offset: number, limit: number) {
  return useQuery({
    queryKey: queryKeys.leagues.page(me, offset),
    queryFn: () => call(api.GET('/leagues', { params: { query: { limit, offset } } })),
    placeholderData: keepPreviousData,
  });
}

/** The league an invite code opens, if any (a code is 6 to 32 letters and digits). */
export function useLeagueInvite(code: string) {
  return useQuery({
    queryKey: queryKeys.leagueInvite(code),
    queryFn: () => call(api.GET('/leagues', { params: { query: { code, limit: 1, offset: 0 } } })),
    enabled: /^[A-Za-z0-9]{6,32}$/.test(code),
  });
}

export function useLeague(id: number, me: number | null) {
  return useQuery({
    queryKey: queryKeys.league.seenBy(id, me),
    queryFn: () => call(api.GET('/leagues/{id}', { params: { path: { id } } })),
    enabled: Number.isInteger(id) && id > 0,
  });
}

/** Polled while the league runs; a final board no longer changes. */
export function useLeagueBoard(id: number) {
  return useQuery({
    queryKey: queryKeys.leagueBoard(id),
    queryFn: (): Promise<LeagueBoard> => call(api.GET('/leagues/{id}/board', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data?.final ? false : 15_000),
  });
}

export function useLeagueFeed(id: number) {
  return useQuery({
    queryKey: queryKeys.leagueFeed(id),
    queryFn: () => call(api.GET('/leagues/{id}/feed', { params: { path: { id }, query: { limit: 50, offset: 0 } } })),
  });
}

// Price alerts.

/** The caller's alerts, active and fired (polled: the watcher fires them while the page is open). */
export function useAlerts() {
  return useQuery({
    queryKey: queryKeys.alerts,
    queryFn: () => call(api.GET('/alerts', { params: { query: { limit: 500, offset: 0 } } })),
    refetchInterval: 15_000,
  });
}
