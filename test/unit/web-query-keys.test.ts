// The web app's query keys (web/src/api/query-keys.ts): what each mutation's
// invalidation reaches, matched as TanStack Query matches (by leading elements).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashKey, partialMatchKey, type QueryKey } from '@tanstack/react-query';
import { afterBetChange, afterMembershipChange, queryKeys as k } from '../../web/src/api/query-keys.js';

/** One key of every kind the app reads, named. */
const SAMPLES: Record<string, QueryKey> = {
  me: k.me,
  portfolio: k.portfolio,
  following: k.following,
  feed: k.feed.page(20),
  userSearch: k.userSearch('ann'),
  profile: k.profile(7, 0),
  stats: k.stats.of(7),
  bet: k.bet.one(3),
  historyPage: k.history.page(0),
  historyTotal: k.history.total(7),
  leaderboardPage: k.leaderboard.page('30d', 5, 100),
  leaderboardAllTime: k.leaderboard.page(null, null, 0),
  leaderboardRanked: k.leaderboard.ranked('30d', 5, 100),
  leaderboardRankedAllTime: k.leaderboard.ranked(null, null, 0),
  leaderboardFront: k.leaderboard.front(10),
  standing: k.leaderboard.standing(null),
  standingMin: k.leaderboard.standing(5),
  rankings: k.rankings.page('90d', 1, 7),
  recordUser: k.record.user(7),
  recordDay: k.record.day('2026-01-02'),
  recordHead: k.record.head,
  recordCheck: k.record.check(3, 7, 'aa', 'bb', 'cc'),
  price: k.price('AAPL'),
  priceHistory: k.priceHistory('AAPL', '1d'),
  instruments: k.instruments('app'),
  instrument: k.instrument('AAPL', '5d'),
  consensus: k.consensus('AAPL'),
  plans: k.plans,
  chatStatus: k.chatStatus,
  notifications: k.notifications.page(0),
  unread: k.notifications.unread,
  myEmail: k.myEmail,
  noticeSettings: k.noticeSettings,
  emailLink: k.emailLink('verify', 'tok'),
  leagues: k.leagues.page(7, 0),
  leaguesVisitor: k.leagues.page(null, 20),
  league3: k.league.seenBy(3, 7),
  league3Visitor: k.league.seenBy(3, null),
  league4: k.league.seenBy(4, 7),
  board3: k.leagueBoard(3),
  board4: k.leagueBoard(4),
  feed3: k.leagueFeed(3),
  invite: k.leagueInvite('ABCDEF'),
};

/** The names of the sample keys that invalidating these prefixes reaches. */
function reached(...prefixes: readonly QueryKey[]): string[] {
  return Object.entries(SAMPLES)
    .filter(([, key]) => prefixes.some((p) => partialMatchKey(key, p)))
    .map(([name]) => name)
    .sort();
}

test('no two kinds of read share a key', () => {
  const hashes = Object.values(SAMPLES).map((key) => hashKey(key));
  assert.equal(new Set(hashes).size, hashes.length);
});

test("closing or cancelling a bet refreshes the caller's money, history, boards, statistics, bets and record, and nothing else", () => {
  assert.deepEqual(reached(...afterBetChange), [
    'bet',
    'historyPage',
    'historyTotal',
    'leaderboardAllTime',
    'leaderboardFront',
    'leaderboardPage',
    'leaderboardRanked',
    'leaderboardRankedAllTime',
    'me',
    'portfolio',
    'rankings',
    'recordCheck',
    'recordDay',
    'recordHead',
    'recordUser',
    'standing',
    'standingMin',
    'stats',
  ]);
});

test("a membership change refreshes that league (for every caller), its board and the league lists; not its feed nor another league's", () => {
  assert.deepEqual(reached(...afterMembershipChange(3)), ['board3', 'league3', 'league3Visitor', 'leagues', 'leaguesVisitor']);
  assert.deepEqual(reached(k.league.of(3), k.leagueBoard(3)), ['board3', 'league3', 'league3Visitor']);
  assert.deepEqual(reached(k.leagues.all), ['leagues', 'leaguesVisitor']);
});

test('the other writes each refresh their own reads only', () => {
  assert.deepEqual(reached(k.following, k.feed.all), ['feed', 'following']);
  assert.deepEqual(reached(k.portfolio), ['portfolio']);
  assert.deepEqual(reached(k.myEmail), ['myEmail']);
  assert.deepEqual(reached(k.chatStatus), ['chatStatus']);
  assert.deepEqual(reached(k.me), ['me']);
});
