// The feed: bets of a set of users, newest event first.
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import { chunk, FEED_USERS_PER_QUERY, type FeedPage, newestEventFirst } from '../domain/feed.js';

/**
 * One page of the bets of userIds by latest event. Each user is its own
 * branch reading at most offset+limit entries of bets_user_event_idx in
 * order, so the cost follows the page depth and the number of users, never
 * the size of their whole history.
 */
export function feedQuery(db: Db, userIds: number[], page: FeedPage) {
  const depth = page.offset + page.limit;
  const branches = userIds.map((id) =>
    db
      .selectFrom((eb) =>
        eb.selectFrom('bets').selectAll().where('user_id', '=', id).orderBy('last_event_at', 'desc').orderBy('id', 'desc').limit(depth).as('b'),
      )
      .selectAll(),
  );
  const [first, ...rest] = branches;
  if (!first) throw new Error('feedQuery needs at least one user');
  const union = rest.reduce((acc, b) => acc.unionAll(b), first);
  return db.selectFrom(union.as('feed')).selectAll().orderBy('last_event_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset);
}

export async function listFeed(db: Db, userIds: number[], page: FeedPage, usersPerQuery = FEED_USERS_PER_QUERY): Promise<BetRow[]> {
  if (userIds.length === 0) return [];
  const groups = chunk(userIds, usersPerQuery);
  if (groups.length === 1) return feedQuery(db, userIds, page).execute();
  // Many followed users: the top offset+limit of each group, merged.
  const depth = { limit: page.offset + page.limit, offset: 0 };
  const parts = await Promise.all(groups.map((ids) => feedQuery(db, ids, depth).execute()));
  return parts
    .flat()
    .sort(newestEventFirst)
    .slice(page.offset, page.offset + page.limit);
}
