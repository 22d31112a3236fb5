// What the suite measures: one scenario per endpoint (or request pair), the
// special user it runs as, and the target for it.
import type { SeqContext, Step } from './load.js';
import { BENCH_PASSWORD, emailOf, FIRST_ORDINARY_ID, loginUserIds, type RoleName, ROLES } from './roles.js';
import { type Target, TARGETS } from './targets.js';
import { PRICE_TICKER, TICKERS } from './tickers.js';

export interface Scenario {
  key: string;
  label: string;
  /** Who is logged in; null for public endpoints. */
  role: RoleName | null;
  /** 'pair': two requests make one unit, and throughput counts pairs. */
  unit: 'request' | 'pair';
  target: Target | null;
  note?: string;
  steps: Step[];
}

function cycle<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length];
}

function jsonField(field: string) {
  return (status: number, body: string, c: SeqContext) => {
    if (status !== 200) return;
    try {
      c[field] = (JSON.parse(body) as Record<string, unknown>)[field];
    } catch {
      // a malformed answer leaves the field unset: the next step is skipped
    }
  };
}

function betPairSteps(): Step[] {
  const ticker = cycle(TICKERS.slice(0, 6).map((t) => t.ticker));
  return [
    { method: 'POST', path: '/bet/open', body: () => ({ ticker: ticker(), direction: 'LONG' }), onResponse: jsonField('bet_id') },
    { method: 'POST', path: '/bet/close', body: (c) => (typeof c.bet_id === 'number' ? { bet_id: c.bet_id } : undefined) },
  ];
}

export function scenarios(users: number): Scenario[] {
  const ordinary = Array.from({ length: users - FIRST_ORDINARY_ID + 1 }, (_, i) => FIRST_ORDINARY_ID + i);
  const followTarget = cycle(ordinary);
  const loginEmail = cycle(loginUserIds(users).map(emailOf));
  return [
    { key: 'health', label: 'GET /', role: null, unit: 'request', target: TARGETS.health, steps: [{ method: 'GET', path: '/' }] },
    {
      key: 'leaderboard',
      label: 'GET /leaderboard',
      role: null,
      unit: 'request',
      target: TARGETS.leaderboard,
      steps: [{ method: 'GET', path: '/leaderboard' }],
    },
    {
      key: 'price',
      label: `GET /price/${PRICE_TICKER}`,
      role: 'demo',
      unit: 'request',
      target: TARGETS.price,
      steps: [{ method: 'GET', path: `/price/${PRICE_TICKER}` }],
    },
    {
      key: 'portfolio',
      label: 'GET /portfolio (10 open bets)',
      role: 'portfolio',
      unit: 'request',
      target: TARGETS.portfolio,
      steps: [{ method: 'GET', path: '/portfolio' }],
    },
    {
      key: 'history',
      label: 'GET /history?limit=100&offset=5000',
      role: 'history',
      unit: 'request',
      target: TARGETS.deepRead,
      steps: [{ method: 'GET', path: '/history?limit=100&offset=5000' }],
    },
    {
      key: 'feed',
      label: 'GET /feed (50 followed)',
      role: 'feed',
      unit: 'request',
      target: TARGETS.deepRead,
      steps: [{ method: 'GET', path: '/feed' }],
    },
    {
      key: 'public',
      label: `GET /user/${ROLES.demo.id}/public`,
      role: null,
      unit: 'request',
      target: TARGETS.deepRead,
      steps: [{ method: 'GET', path: `/user/${ROLES.demo.id}/public` }],
    },
    {
      key: 'bet-pairs',
      label: 'POST /bet/open + /bet/close (no followers)',
      role: 'trader',
      unit: 'pair',
      target: TARGETS.betPairs,
      steps: betPairSteps(),
    },
    {
      key: 'bet-pairs-followed',
      label: 'POST /bet/open + /bet/close (50 followers)',
      role: 'popular',
      unit: 'pair',
      target: null,
      note: 'the followers are linked to messaging (local log transport) when the chat_links table exists',
      steps: betPairSteps(),
    },
    {
      key: 'follow-pairs',
      label: 'POST /follow follow + unfollow',
      role: 'follower',
      unit: 'pair',
      target: null,
      steps: [
        {
          method: 'POST',
          path: '/follow',
          body: (c) => {
            c.target = followTarget();
            return { followed_id: c.target, action: 'follow' };
          },
        },
        { method: 'POST', path: '/follow', body: (c) => ({ followed_id: c.target, action: 'unfollow' }) },
      ],
    },
    {
      key: 'login',
      label: 'POST /login',
      role: null,
      unit: 'request',
      target: null,
      note: 'bounded by the password hash by design',
      steps: [{ method: 'POST', path: '/login', body: () => ({ email: loginEmail(), password: BENCH_PASSWORD }) }],
    },
  ];
}

/** Logins at full speed beside the leaderboard, whose p99 must stay low (hashing off the event loop, bounded). */
export function loginMix(users: number): { logins: Step[]; reads: Step[] } {
  const login = scenarios(users).find((s) => s.key === 'login')!;
  return { logins: login.steps, reads: [{ method: 'GET', path: '/leaderboard' }] };
}
