// Feed rules with no I/O.

/**
 * Followed users are read in groups of this many per query: each user is one
 * branch of a UNION ALL (SQLite allows at most 500 per statement), and a page
 * needs only the newest offset+limit bets of each, which the
 * (user_id, last_event_at, id) index yields without sorting.
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
