// Every query key of the web app. TanStack Query matches a key by its leading
// elements, so a mutation invalidates with one of the prefixes here and thereby
// every query under it. Names that only look related are separate roots on
// purpose: invalidating `league` (one league) leaves `leagues` (the list),
// `league-board` and `league-feed` alone. Imports types only, so Node tests load it.
import type { Period } from '../lib/window-params.js';

export const queryKeys = {
  me: ['me'] as const,
  portfolio: ['portfolio'] as const,
  following: ['following'] as const,
  feed: { all: ['feed'] as const, page: (offset: number) => ['feed', offset] as const },
  userSearch: (term: string) => ['user-search', term] as const,
  profile: (userId: number, offset: number) => ['profile', userId, offset] as const,
  stats: { all: ['stats'] as const, of: (userId: number) => ['stats', userId] as const },
  bet: {
    all: ['bet'] as const,
    one: (betId: number) => ['bet', betId] as const,
    /** The owner's stop-loss and take-profit (GET /bet/{bet_id}/exits): under the bet, so what refreshes the bet refreshes them. */
    exits: (betId: number) => ['bet', betId, 'exits'] as const,
  },
  history: {
    all: ['history'] as const,
    page: (offset: number) => ['history', offset] as const,
    /** The caller's count of closed and cancelled bets, read from their public profile. */
    total: (userId: number) => ['history', 'total', userId] as const,
  },
  leaderboard: {
    all: ['leaderboard'] as const,
    page: (period: Period | null, minTrades: number | null, offset: number) => ['leaderboard', 'page', period, minTrades, offset] as const,
    /** GET /leaderboard/ranked: the same window and page, summing ranked gains. */
    ranked: (period: Period | null, minTrades: number | null, offset: number) => ['leaderboard', 'ranked', period, minTrades, offset] as const,
    /** The front door's top rows, of the ranked board. */
    front: (limit: number) => ['leaderboard', 'front', 'ranked', limit] as const,
    /** The caller's own rank in every window (GET /me/standing). */
    standing: (minTrades: number | null) => ['leaderboard', 'standing', minTrades] as const,
  },
  /** Rankings answer with the caller's own row, so the key names the caller. */
  rankings: {
    all: ['rankings'] as const,
    page: (period: Period, minTrades: number, me: number | null) => ['rankings', period, minTrades, me] as const,
  },
  record: {
    all: ['record'] as const,
    user: (userId: number) => ['record', 'user', userId] as const,
    day: (date: string | null) => ['record', 'day', date] as const,
    head: ['record', 'head'] as const,
    /** A bet's check in the browser, redone when the chain head or a root it rests on moves. */
    check: (betId: number, userId: number, lastHash: string | null, proofRoot: string | null, dayRoot: string | null) =>
      ['record', 'check', betId, userId, lastHash, proofRoot, dayRoot] as const,
  },
  /** The price now (GET /price/{ticker}): what a Tail or Fade would open at, asked for before confirming. */
  price: (ticker: string) => ['price', ticker] as const,
  priceHistory: (ticker: string, range: string) => ['price-history', ticker, range] as const,
  instruments: (q: string) => ['instruments', q] as const,
  instrument: (ticker: string, range: string) => ['instrument', ticker, range] as const,
  consensus: (ticker: string) => ['consensus', ticker] as const,
  plans: ['plans'] as const,
  /** The caller's price alerts (GET /alerts). */
  alerts: ['alerts'] as const,
  chatStatus: ['chat-status'] as const,
  notifications: { page: (offset: number) => ['notifications', offset] as const, unread: ['notifications-unread'] as const },
  myEmail: ['my-email'] as const,
  noticeSettings: ['notice-settings'] as const,
  pushDevices: ['push-devices'] as const,
  emailLink: (kind: 'verify' | 'confirm', token: string) => ['email-link', kind, token] as const,
  leagues: { all: ['leagues'] as const, page: (me: number | null, offset: number) => ['leagues', me, offset] as const },
  /** One league as the caller sees it (membership, invite code); `league.of(id)` is every caller's. */
  league: { of: (id: number) => ['league', id] as const, seenBy: (id: number, me: number | null) => ['league', id, me] as const },
  leagueBoard: (id: number) => ['league-board', id] as const,
  leagueFeed: (id: number) => ['league-feed', id] as const,
  leagueInvite: (code: string) => ['league-invite', code] as const,
};

/** What a bet closed or cancelled by the caller changes: their money, history, boards, statistics and record. */
export const afterBetChange = [
  queryKeys.portfolio,
  queryKeys.history.all,
  queryKeys.leaderboard.all,
  queryKeys.bet.all,
  queryKeys.me,
  queryKeys.stats.all,
  queryKeys.rankings.all,
  queryKeys.record.all,
] as const;

/** A change to the caller's membership of league `id`: the league, its board and the lists of leagues. */
export const afterMembershipChange = (id: number) => [queryKeys.league.of(id), queryKeys.leagueBoard(id), queryKeys.leagues.all] as const;
