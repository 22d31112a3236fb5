// What the suite measures: one scenario per endpoint (or request pair), who
// sends it, and the target for it on the run's database.
import { Population } from './dataset.js';
import type { Plan, RequestSpec } from './load.js';
import type { Preset } from './presets.js';
import { BENCH_PASSWORD, emailOf, FIRST_ORDINARY_ID, loginUserIds, type RoleName, ROLES } from './roles.js';
import { type Dialect, type Target, targetsFor } from './targets.js';
import { PRICE_TICKER, TICKERS } from './tickers.js';

/** The sessions a run holds: the special users' and the ordinary traders' (cookie header values). */
export interface Sessions {
  roles: Map<RoleName, string>;
  /** One per trader of `tradersOf`, in that order. */
  traders: string[];
}

export type Who = RoleName | 'traders' | null;

export interface Scenario {
  key: string;
  label: string;
  kind: 'read' | 'write' | 'login';
  /** 'pair': two requests make one unit, and throughput counts pairs. */
  unit: 'request' | 'pair';
  /** Whose sessions it needs: a special user, the ordinary traders, or nobody. */
  who: Who;
  target: Target | null;
  /** A public read everyone sees alike (nginx micro-caches it): judged against a hello world through nginx in the scale-out run. */
  sharedPublic?: boolean;
  note?: string;
  plan(sessions: Sessions): Plan;
}

/** At least 64 traders, and at least one per connection; a smoke run makes do with fewer (each logs in, slowly by design). */
export function traderCount(connections: number, quick = false): number {
  return Math.max(quick ? 16 : 64, connections);
}

/** The ordinary traders of the spread writes (ids), and the users they follow and unfollow (none of them a trader). */
export function tradersOf(preset: Preset, count: number): { traders: number[]; followTargets: number[] } {
  const traders = new Population(preset, Date.now()).traders(count);
  const taken = new Set(traders);
  const followTargets: number[] = [];
  for (let id = preset.users; id >= FIRST_ORDINARY_ID && followTargets.length < 1000; id--) if (!taken.has(id)) followTargets.push(id);
  return { traders, followTargets };
}

const get = (path: string): RequestSpec => ({ method: 'GET', path });

function cookieOf(sessions: Sessions, role: RoleName): string {
  const cookie = sessions.roles.get(role);
  if (!cookie) throw new Error(`no session for ${ROLES[role].username}`);
  return cookie;
}

export function scenarios(preset: Preset, dialect: Dialect, traders: number): Scenario[] {
  const t = targetsFor(dialect);
  const { followTargets } = tradersOf(preset, traders);
  const betTickers = TICKERS.slice(0, 6).map((x) => x.ticker);
  const betPage = Math.floor(preset.finishedBets / 2);
  const read = (key: string, label: string, who: Who, target: Target, path: string, extra: Partial<Scenario> = {}): Scenario => ({
    key,
    label,
    kind: 'read',
    unit: 'request',
    who,
    target,
    plan: (s) => ({ kind: 'single', request: get(path), cookie: who === null ? undefined : who === 'traders' ? s.traders[0] : cookieOf(s, who) }),
    ...extra,
  });
  const betPairs = (key: string, label: string, who: Who, target: Target | null, note?: string): Scenario => ({
    key,
    label,
    kind: 'write',
    unit: 'pair',
    who,
    target,
    ...(note ? { note } : {}),
    plan: (s) => ({ kind: 'pairs', pair: 'bet', cookies: who === 'traders' ? s.traders : [cookieOf(s, who as RoleName)], tickers: betTickers }),
  });
  const logins = loginUserIds(preset.users).map((id) => ({
    method: 'POST' as const,
    path: '/login',
    body: JSON.stringify({ email: emailOf(id), password: BENCH_PASSWORD }),
  }));
  return [
    read('health', 'GET /', null, t.health, '/'),
    read('leaderboard', 'GET /leaderboard', null, t.leaderboard, '/leaderboard', { sharedPublic: true }),
    read('leaderboard-window', 'GET /leaderboard?period=30d', null, t.otherRead, '/leaderboard?period=30d', { sharedPublic: true }),
    read('price', `GET /price/${PRICE_TICKER} (an ordinary trader's session)`, 'traders', t.price, `/price/${PRICE_TICKER}`),
    read('portfolio', 'GET /portfolio (10 open bets)', 'portfolio', t.portfolio, '/portfolio'),
    read('history', 'GET /history?limit=100&offset=5000', 'history', t.deepRead, '/history?limit=100&offset=5000'),
    read('history-deep', 'GET /history?limit=100&offset=10000', 'history', t.deepRead, '/history?limit=100&offset=10000', {
      note: `the history user has ${preset.historyBets.toLocaleString('en-US')} finished bets in this population`,
    }),
    read('feed', 'GET /feed (50 followed)', 'feed', t.deepRead, '/feed'),
    read('public', `GET /user/${ROLES.demo.id}/public`, null, t.publicRead, `/user/${ROLES.demo.id}/public`, { sharedPublic: true }),
    read('bet-page', `GET /bet/${betPage}`, null, t.otherRead, `/bet/${betPage}`, { sharedPublic: true }),
    betPairs(
      'bet-pairs',
      `POST /bet/open + /bet/close, ${traders} traders`,
      'traders',
      t.betPairs,
      'ordinary traders of the population, each with its own followers, one per connection or more',
    ),
    betPairs(
      'bet-pairs-hot',
      'POST /bet/open + /bet/close, one hot trader',
      'trader',
      null,
      "every connection is the same trader: they wait on that trader's row lock",
    ),
    betPairs(
      'bet-pairs-followed',
      'POST /bet/open + /bet/close, one trader with 50 linked followers',
      'popular',
      null,
      'each pair queues notices for 50 linked chats; the outbox delivers them after the run (the local log transport)',
    ),
    {
      key: 'follow-pairs',
      label: `POST /follow follow + unfollow, ${traders} traders`,
      kind: 'write',
      unit: 'pair',
      who: 'traders',
      target: null,
      plan: (s) => ({ kind: 'pairs', pair: 'follow', cookies: s.traders, targets: followTargets }),
    },
    {
      key: 'login',
      label: 'POST /login',
      kind: 'login',
      unit: 'request',
      who: null,
      target: null,
      note: 'bounded by the password hash (argon2id) by design',
      plan: () => ({ kind: 'rotate', requests: logins }),
    },
  ];
}

/** Logins at full speed beside the leaderboard, whose p99 must stay low (hashing off the event loop, bounded). */
export function loginMix(preset: Preset, dialect: Dialect): { logins: Plan; reads: Plan; target: Target } {
  const all = scenarios(preset, dialect, traderCount(1));
  const empty: Sessions = { roles: new Map(), traders: [] };
  return {
    logins: all.find((s) => s.key === 'login')!.plan(empty),
    reads: all.find((s) => s.key === 'leaderboard')!.plan(empty),
    target: targetsFor(dialect).leaderboardDuringLogins,
  };
}

/** The scenario keys --only accepts, besides these runs of their own. */
export const EXTRA_KEYS = ['login-mix', 'fan-out', 'triggers'] as const;
