// The generated population's special users. They take the first ids, in this
// order, in every preset; everyone after them is an ordinary user. The load
// driver logs in as them to measure one kind of request each; the spread
// writes are made by ordinary traders (benchTraders in dataset.ts).

/** Everyone's password (users share one precomputed hash). */
export const BENCH_PASSWORD = 'paper trading benchmark passphrase';

export const ROLES = {
  /** The demo's account: a few open bets, some history, follows and followers. Its public profile is measured. */
  demo: { id: 1, username: 'demo_trader' },
  /** Exactly 10 open bets: GET /portfolio. */
  portfolio: { id: 2, username: 'bench_portfolio' },
  /** The preset's historyBets finished bets: GET /history at offsets 5,000 and 10,000. */
  history: { id: 3, username: 'bench_history' },
  /** Follows 50 active traders: GET /feed. */
  feed: { id: 4, username: 'bench_feed' },
  /** No followers, no open bets, a plan-sized bet capacity: the single hot trader, and the fan-out's 0 followers. */
  trader: { id: 5, username: 'bench_trader' },
  /** 50 followers with linked chats, a plan-sized bet capacity: open + close pairs that fan out. */
  popular: { id: 6, username: 'bench_popular' },
  /** Follows nobody, a plan-sized follow capacity. */
  follower: { id: 7, username: 'bench_follower' },
  /** The fan-out's middle step: the preset's first fan-out count of followers (1,000 in full), every one with a linked chat. */
  fanOutMid: { id: 8, username: 'bench_fanout_mid' },
  /** The fan-out's top step: the preset's second count (10,000 in full), every one with a linked chat. */
  fanOutLarge: { id: 9, username: 'bench_fanout_large' },
} as const;

export type RoleName = keyof typeof ROLES;

export const FIRST_ORDINARY_ID = 10;

/** Capacity the write-heavy roles get, as if on a plan, so 64 concurrent opens never hit the limit. */
export const PLAN_SIZED_EXTRA = 1_000_000;

export const FEED_FOLLOWS = 50;
export const POPULAR_FOLLOWERS = 50;
export const PORTFOLIO_OPEN_BETS = 10;

export function emailOf(id: number): string {
  const role = Object.values(ROLES).find((r) => r.id === id);
  return role ? `${role.username.replace('_', '.')}@bench.test` : `user${id}@bench.test`;
}

/** Ordinary users the login measurement cycles through. */
export function loginUserIds(users: number, count = 500): number[] {
  const n = Math.max(1, Math.min(count, users - FIRST_ORDINARY_ID + 1));
  return Array.from({ length: n }, (_, i) => FIRST_ORDINARY_ID + i);
}
