// The feed: bets of a set of users, newest event first.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { BetRow } from '../db/tables.js';
import { chunk, FEED_USERS_PER_QUERY, type FeedPage, newestEventFirst } from '../domain/feed.js';

type FeedValues = { limit: number; offset: number; depth: number } & Record<`u${number}`, number>;

/**
 * The newest `depth` (id, last_event_at) of one user's bets, in feed order:
 * a read of bets_user_event_idx alone (an index-only read), so its cost is
 * the depth, never the size of the user's history. A branch of the union
 * below and of the timeline's merge with heavily followed traders
 * (src/repositories/timeline.ts).
 */
export function latestEvents(db: Db, userId: number, depth: number) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('bets')
        .select(['id', 'last_event_at'])
        .where('user_id', '=', userId)
        .orderBy('last_event_at', 'desc')
        .orderBy('id', 'desc')
        .limit(depth)
        .as('b'),
    )
    .select(['b.id', 'b.last_event_at']);
}

/**
 * One page of the bets of n users by latest event, each user one branch of
 * latestEvents to offset+limit; only the page's own rows are then read from
 * the table. The feed read this way before timelines (migration 0034); it now
 * serves as the reference the timelines are tested against. The statement's
 * text depends only on n, so it is built and compiled once per n
 * (src/db/prepared.ts).
 */
function feedQueryFor(n: number) {
  return prepared((db, v: FeedValues) => {
    const branches = Array.from({ length: n }, (_, i) => latestEvents(db, v[`u${i}`], v.depth));
    const [first, ...rest] = branches;
    if (!first) throw new Error('a feed query needs at least one user');
    const union = rest.reduce((acc, b) => acc.unionAll(b), first);
    const page = db
      .selectFrom(union.as('feed'))
      .select('feed.id')
      .orderBy('feed.last_event_at', 'desc')
      .orderBy('feed.id', 'desc')
      .limit(v.limit)
      .offset(v.offset);
    return db.selectFrom('bets').selectAll().where('id', 'in', page).orderBy('last_event_at', 'desc').orderBy('id', 'desc');
  });
}

// At most FEED_USERS_PER_QUERY entries: one per group size.
const feedQueries = new Map<number, ReturnType<typeof feedQueryFor>>();

function feedQuery(db: Db, userIds: number[], page: FeedPage): Promise<BetRow[]> {
  let query = feedQueries.get(userIds.length);
  if (!query) {
    query = feedQueryFor(userIds.length);
    feedQueries.set(userIds.length, query);
  }
  const values: FeedValues = { limit: page.limit, offset: page.offset, depth: page.offset + page.limit };
  userIds.forEach((id, i) => {
    values[`u${i}`] = id;
  });
  return query(db, values);
}

export async function listFeed(db: Db, userIds: number[], page: FeedPage, usersPerQuery = FEED_USERS_PER_QUERY): Promise<BetRow[]> {
  if (userIds.length === 0) return [];
  const groups = chunk(userIds, usersPerQuery);
  if (groups.length === 1) return feedQuery(db, userIds, page);
  // Many followed users: the top offset+limit of each group, merged.
  const depth = { limit: page.offset + page.limit, offset: 0 };
  const parts = await Promise.all(groups.map((ids) => feedQuery(db, ids, depth)));
  return parts
    .flat()
    .sort(newestEventFirst)
    .slice(page.offset, page.offset + page.limit);
}
