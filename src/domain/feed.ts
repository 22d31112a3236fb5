// Feed rules with no I/O.

/**
 * Users whose bets are read at read time (heavily followed traders merged
 * with a timeline, src/repositories/timeline.ts) are read in groups of at
 * most this many branches per query: each is one branch of a UNION ALL
 * (SQLite allows at most 500 per statement), and a page needs only the newest
 * offset+limit bets of each, which the (user_id, last_event_at, id) index
 * yields without sorting.
 */
export const FEED_USERS_PER_QUERY = 200;

export interface FeedPage {
  limit: number;
  offset: number;
}

/** Feed order: latest event first, then the newer bet. */
export function newestEventFirst(a: { last_event_at: number; id: number }, b: { last_event_at: number; id: number }): number {
  return b.last_event_at - a.last_event_at || b.id - a.id;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A trader with at least this many followers is heavily followed
 * (FEED_FANOUT_MAX_FOLLOWERS): their bets are not copied into every
 * follower's timeline on each event but read at read time, so one event never
 * writes more than this many timeline rows.
 */
export const FEED_FANOUT_MAX_FOLLOWERS = 1000;

/**
 * What a new follow does to the followed trader's fan-out: copy their bets
 * into the new follower's timeline, or (at the threshold) mark them heavily
 * followed and take their bets out of every timeline, or nothing (already heavy).
 */
export function fanOutAfterFollow(heavy: boolean, followers: number, maxFollowers: number): 'copy' | 'becomeHeavy' | 'none' {
  if (heavy) return 'none';
  return followers >= maxFollowers ? 'becomeHeavy' : 'copy';
}

/**
 * Whether an unfollow returns a heavily followed trader to the fan-out: only
 * below half the threshold, so a trader hovering at it does not rewrite every
 * follower's timeline on each follow and unfollow.
 */
export function fanOutAfterUnfollow(heavy: boolean, followers: number, maxFollowers: number): 'becomeLight' | 'none' {
  return heavy && followers < Math.ceil(maxFollowers / 2) ? 'becomeLight' : 'none';
}
