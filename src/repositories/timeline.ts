// Timelines (migrations 0034 and 0038): each follower's copy of the (id, last
// event) of every bet of the traders they follow, except heavily followed
// traders', whose bets are read at read time (docs/performance.md "The feed").
import { type AliasedSelectQueryBuilder, type Expression, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { BetRow } from '../db/tables.js';
import { jsonArrayText } from '../db/json-array.js';
import { chunk, FEED_USERS_PER_QUERY, type FeedPage, newestEventFirst } from '../domain/feed.js';
import { latestEvents } from './feed.js';

/**
 * An opening: the new bet into the timeline of every follower of its owner in
 * one statement (follows_followed_idx), unless the owner is heavily followed.
 */
const fanOutOpeningQuery = prepared((db, p: { ownerId: number; betId: number; at: number }) =>
  db
    .insertInto('timeline')
    .columns(['follower_id', 'bet_id', 'last_event_at'])
    .expression(
      db
        .selectFrom('follows')
        .select((eb) => ['follows.follower_id', eb.val(p.betId).as('bet_id'), eb.val(p.at).as('last_event_at')])
        .where('follows.followed_id', '=', p.ownerId)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('heavily_followed').select('user_id').where('user_id', '=', p.ownerId)))),
    )
    .onConflict((oc) => oc.doNothing()),
);

/**
 * A later event: each follower's row of the bet moves from the bet's former
 * event time to the new one, found by its key (follower, former time, bet).
 * The heavily followed test is a constant of the statement, checked once.
 */
const fanOutMoveQuery = prepared((db, p: { ownerId: number; betId: number; from: number; at: number }) =>
  db
    .updateTable('timeline')
    .set({ last_event_at: p.at })
    .where('follower_id', 'in', (eb) => eb.selectFrom('follows').select('follows.follower_id').where('follows.followed_id', '=', p.ownerId))
    .where('last_event_at', '=', p.from)
    .where('bet_id', '=', p.betId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('heavily_followed').select('user_id').where('user_id', '=', p.ownerId)))),
);

/**
 * The statement of a bet's fan-out, to send with the other writes of its
 * event (src/services/bet-aggregates.ts). A bet's event time is its opening
 * time until it finishes (src/services/timeline.ts), so a finishing event
 * finds the rows at `opened_at`.
 */
export function fanOutStatement(
  db: Db,
  e: { kind: 'opened' | 'closed' | 'cancelled' | 'settled'; bet: Pick<BetRow, 'id' | 'user_id' | 'last_event_at' | 'opened_at'> },
) {
  const { bet } = e;
  if (e.kind === 'opened') return fanOutOpeningQuery.statement(db, { ownerId: bet.user_id, betId: bet.id, at: bet.last_event_at });
  return fanOutMoveQuery.statement(db, { ownerId: bet.user_id, betId: bet.id, from: bet.opened_at, at: bet.last_event_at });
}

/** Rows of the timeline whose key (follower, time, bet), or its (time, bet), is among `keys`'s rows: a seek of the key each. */
const keyIn = (keys: Expression<unknown>) => sql<boolean>`(follower_id, last_event_at, bet_id) in (${keys})`;
const timeAndBetIn = (keys: Expression<unknown>) => sql<boolean>`(last_event_at, bet_id) in (${keys})`;

/** Every bet of `followedId` into the timeline of `followerId` (a new follow). */
export async function copyIntoTimeline(db: Db, followerId: number, followedId: number): Promise<void> {
  await db
    .insertInto('timeline')
    .columns(['follower_id', 'bet_id', 'last_event_at'])
    .expression(
      db
        .selectFrom('bets')
        .select((eb) => [eb.val(followerId).as('follower_id'), 'bets.id', 'bets.last_event_at'])
        .where('bets.user_id', '=', followedId),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The bets of `followedId` out of the timeline of `followerId` (an unfollow): a seek of the timeline's key for each (bets_user_event_idx). */
export async function removeFromTimeline(db: Db, followerId: number, followedId: number): Promise<void> {
  await db
    .deleteFrom('timeline')
    .where('follower_id', '=', followerId)
    .where(timeAndBetIn(db.selectFrom('bets').select(['bets.last_event_at', 'bets.id']).where('bets.user_id', '=', followedId)))
    .execute();
}

/** The bets of `userId` out of the timelines of all their followers (read from follows, so before the follows go). */
async function removeFromFollowersTimelines(db: Db, userId: number): Promise<void> {
  await db
    .deleteFrom('timeline')
    .where(
      keyIn(
        db
          .selectFrom('follows')
          .innerJoin('bets', 'bets.user_id', 'follows.followed_id')
          .select(['follows.follower_id', 'bets.last_event_at', 'bets.id'])
          .where('follows.followed_id', '=', userId),
      ),
    )
    .execute();
}

/** Whether a trader is heavily followed, and their followers counted up to `upTo` (follows_followed_idx). */
export async function fanOutState(db: Db, userId: number, upTo: number): Promise<{ heavy: boolean; followers: number }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('heavily_followed').select('user_id').where('user_id', '=', userId)).as('heavy'),
      eb
        .selectFrom((s) => s.selectFrom('follows').select('follower_id').where('followed_id', '=', userId).limit(upTo).as('f'))
        .select((s) => s.fn.countAll<number>().as('n'))
        .as('followers'),
    ])
    .executeTakeFirstOrThrow();
  return { heavy: Boolean(row.heavy), followers: Number(row.followers) };
}

/** Marks a trader heavily followed: their bets leave every timeline, to be read at read time. */
export async function markHeavilyFollowed(db: Db, userId: number): Promise<void> {
  await db
    .insertInto('heavily_followed')
    .values({ user_id: userId })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  await removeFromFollowersTimelines(db, userId);
}

/** Returns a trader to the fan-out: their bets go into every follower's timeline. */
export async function unmarkHeavilyFollowed(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('heavily_followed').where('user_id', '=', userId).execute();
  await fillTimelines(db, [userId]);
}

/** A deleted account's timeline, and its bets in its followers' timelines: before its follows are removed. */
export async function forgetTimelinesOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('timeline').where('follower_id', '=', userId).execute();
  await removeFromFollowersTimelines(db, userId);
  await db.deleteFrom('heavily_followed').where('user_id', '=', userId).execute();
}

/**
 * Marks every trader with at least `maxFollowers` followers heavily followed,
 * as the follows that got them there would have: for rows written straight
 * into the tables (the benchmark's generated data), before fillTimelines.
 */
export async function markHeavilyFollowedAll(db: Db, maxFollowers: number): Promise<void> {
  await sql`
    insert into heavily_followed (user_id)
    select followed_id from follows group by followed_id having count(*) >= ${maxFollowers}
    on conflict (user_id) do nothing
  `.execute(db);
}

/**
 * Writes the timeline rows of the bets of `ownerIds` (all owners without),
 * except heavily followed ones', as their events and follows would have: for
 * rows written straight into the tables (the benchmark's generated data, test
 * fixtures), as renumberHistory does for history places. A row already there
 * is kept; a bet's time changed behind the service's back would need its rows
 * removed first (the time is part of the key).
 */
export async function fillTimelines(db: Db, ownerIds?: readonly number[]): Promise<void> {
  if (ownerIds !== undefined && ownerIds.length === 0) return;
  const only = ownerIds === undefined ? sql`` : sql`and f.followed_id in (${sql.join(ownerIds)})`;
  await sql`
    insert into timeline (follower_id, bet_id, last_event_at)
    select f.follower_id, b.id, b.last_event_at
    from follows f
    join users u on u.id = f.followed_id and u.deleted_at is null
    join bets b on b.user_id = f.followed_id
    where not exists (select 1 from heavily_followed h where h.user_id = f.followed_id) ${only}
    on conflict do nothing
  `.execute(db);
}

/**
 * The live heavily followed traders someone follows (few: each has
 * FEED_FANOUT_MAX_FOLLOWERS followers or more). Each followed trader is only
 * probed in heavily_followed, a table of a page or two; users is read for the
 * few found there, not for every followed trader (a third of the cost on
 * SQLite for a follower of 50).
 */
const heavyFollowedQuery = prepared((db, p: { followerId: number }) =>
  db
    .selectFrom('follows as f')
    .innerJoin('heavily_followed as h', 'h.user_id', 'f.followed_id')
    .select('h.user_id')
    .where('f.follower_id', '=', p.followerId)
    .where((eb) => eb.exists(eb.selectFrom('users as u').select('u.id').whereRef('u.id', '=', 'h.user_id').where('u.deleted_at', 'is', null)))
    .orderBy('h.user_id'),
);

export async function heavilyFollowedBy(db: Db, followerId: number): Promise<number[]> {
  return (await heavyFollowedQuery(db, { followerId })).map((r) => Number(r.user_id));
}

/**
 * A bet of a feed page: its key, its owner, and `v`, one value for the rest.
 * A finished bet's `v` is its stored view (the JSON text of an object,
 * migration 0040), which never changes; an OPEN bet's is the JSON text of the
 * array OpenFeedFields, the columns its view is marked to market from.
 */
export interface FeedRow {
  id: number;
  last_event_at: number;
  user_id: number;
  username: string;
  v: string | null;
}

/** `v` of an OPEN bet, parsed. */
export type OpenFeedFields = [ticker: string, direction: BetRow['direction'], entryPrice: number, openedAt: number];

type PageValues = { followerId: number; limit: number; offset: number; depth: number } & Record<`u${number}`, number>;

/**
 * A page of the timeline merged with the bets of `n` heavily followed users:
 * the timeline's range of its key to offset+limit, each heavy user's
 * bets_user_event_idx to the same depth (n = 0: the range at the offset
 * alone, no sort), then only the page's rows from bets and users, each as
 * FeedRow's five values: on SQLite a column read into a row object costs
 * about 0.5 µs a row, so the fourteen columns of a view were most of the
 * statement. The rows are joined to the page in its order, so the page's
 * own order is kept by the join rather than sorted again (a sort of 100 rows
 * with every column they carry, on SQLite a temporary b-tree).
 */
function pageQueryFor(n: number) {
  return prepared((db, v: PageValues) => {
    const timeline = db.selectFrom('timeline').where('follower_id', '=', v.followerId).orderBy('last_event_at', 'desc').orderBy('bet_id', 'desc');
    const rowsOf = (page: AliasedSelectQueryBuilder<{ id: number; last_event_at: number }, 'p'>) =>
      db
        .selectFrom(page)
        .innerJoin('bets', 'bets.id', 'p.id')
        .innerJoin('users', 'users.id', 'bets.user_id')
        .select((eb) => [
          'p.id',
          'p.last_event_at',
          'bets.user_id',
          'users.username',
          eb
            .case()
            .when('bets.status', '=', 'OPEN')
            .then(jsonArrayText(db, [eb.ref('bets.ticker'), eb.ref('bets.direction'), eb.ref('bets.entry_price'), eb.ref('bets.opened_at')]))
            .else(eb.ref('bets.view_json'))
            .end()
            .as('v'),
        ])
        .orderBy('p.last_event_at', 'desc')
        .orderBy('p.id', 'desc');
    if (n === 0) return rowsOf(timeline.select(['bet_id as id', 'last_event_at']).limit(v.limit).offset(v.offset).as('p'));
    const branches = [
      db.selectFrom(timeline.select(['bet_id as id', 'last_event_at']).limit(v.depth).as('b')).select(['b.id', 'b.last_event_at']),
      ...Array.from({ length: n }, (_, i) => latestEvents(db, v[`u${i}`], v.depth)),
    ];
    const [first, ...rest] = branches;
    const union = rest.reduce((acc, b) => acc.unionAll(b), first!);
    const page = db
      .selectFrom(union.as('feed'))
      .select(['feed.id', 'feed.last_event_at'])
      .orderBy('feed.last_event_at', 'desc')
      .orderBy('feed.id', 'desc')
      .limit(v.limit)
      .offset(v.offset);
    return rowsOf(page.as('p'));
  });
}

// One entry per number of heavy users, at most FEED_USERS_PER_QUERY.
const pageQueries = new Map<number, ReturnType<typeof pageQueryFor>>();

function pageQuery(db: Db, followerId: number, heavyIds: number[], page: FeedPage): Promise<FeedRow[]> {
  let query = pageQueries.get(heavyIds.length);
  if (!query) {
    query = pageQueryFor(heavyIds.length);
    pageQueries.set(heavyIds.length, query);
  }
  const values: PageValues = { followerId, limit: page.limit, offset: page.offset, depth: page.offset + page.limit };
  heavyIds.forEach((id, i) => {
    values[`u${i}`] = id;
  });
  return query(db, values) as Promise<FeedRow[]>;
}

/** One page of a follower's feed: their timeline merged with the heavily followed users they follow. */
export async function feedPage(
  db: Db,
  followerId: number,
  heavyIds: number[],
  page: FeedPage,
  usersPerQuery = FEED_USERS_PER_QUERY,
): Promise<FeedRow[]> {
  // One branch is the timeline's: a statement holds it and usersPerQuery - 1 heavy users.
  const groups = chunk(heavyIds, usersPerQuery - 1);
  if (groups.length <= 1) return pageQuery(db, followerId, heavyIds, page);
  // Following more heavy users than one statement holds: each group's top offset+limit with the timeline's, merged.
  const depth = { limit: page.offset + page.limit, offset: 0 };
  const parts = await Promise.all(groups.map((ids) => pageQuery(db, followerId, ids, depth)));
  const seen = new Set<number>();
  return parts
    .flat()
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .sort(newestEventFirst)
    .slice(page.offset, page.offset + page.limit);
}
