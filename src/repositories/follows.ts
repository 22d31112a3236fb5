// Follow relations. A follow of a deleted account no longer counts: it is
// neither listed nor charged against the follower's capacity.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';

/**
 * Inserts a follow only when the followed account is live and the follower
 * follows fewer live accounts than `capacity`: the checks and the insert are
 * one statement. The caller holds the follower's row lock (PostgreSQL) or the
 * write lock (SQLite), so the count cannot change before commit.
 */
const followWithinCapacityQuery = prepared((db, p: { followerId: number; followedId: number; at: number; capacity: number }) =>
  db
    .insertInto('follows')
    .columns(['follower_id', 'followed_id', 'created_at'])
    .expression(
      db
        .selectNoFrom((eb) => [eb.val(p.followerId).as('follower_id'), eb.val(p.followedId).as('followed_id'), eb.val(p.at).as('created_at')])
        .where((eb) => eb.exists(eb.selectFrom('users').select('id').where('id', '=', p.followedId).where('deleted_at', 'is', null)))
        .where((eb) =>
          eb(
            liveFollows(db, p.followerId).select((c) => c.fn.countAll<number>().as('n')),
            '<',
            p.capacity,
          ),
        ),
    )
    .onConflict((oc) => oc.columns(['follower_id', 'followed_id']).doNothing())
    .returning('follower_id'),
);

/** True when the follow was added; false when it existed already, the followed account is gone, or the follower is at capacity. */
export async function insertFollowWithinCapacity(db: Db, followerId: number, followedId: number, at: number, capacity: number): Promise<boolean> {
  const rows = await followWithinCapacityQuery(db, { followerId, followedId, at, capacity });
  return rows.length > 0;
}

export async function insertFollow(db: Db, followerId: number, followedId: number, at: number): Promise<void> {
  await db
    .insertInto('follows')
    .values({ follower_id: followerId, followed_id: followedId, created_at: at })
    .onConflict((oc) => oc.columns(['follower_id', 'followed_id']).doNothing())
    .execute();
}

/** True when a row was removed. */
export async function deleteFollow(db: Db, followerId: number, followedId: number): Promise<boolean> {
  const res = await db.deleteFrom('follows').where('follower_id', '=', followerId).where('followed_id', '=', followedId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function isFollowing(db: Db, followerId: number, followedId: number): Promise<boolean> {
  const row = await db
    .selectFrom('follows')
    .select('followed_id')
    .where('follower_id', '=', followerId)
    .where('followed_id', '=', followedId)
    .executeTakeFirst();
  return row !== undefined;
}

function liveFollows(db: Db, followerId: number) {
  return db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.followed_id')
    .where('follows.follower_id', '=', followerId)
    .where('users.deleted_at', 'is', null);
}

export async function countFollowing(db: Db, followerId: number): Promise<number> {
  const row = await liveFollows(db, followerId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Live accounts following a user (a trader's audience on profiles and in search; follows_followed_idx). */
export async function countFollowers(db: Db, followedId: number): Promise<number> {
  const row = await db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.follower_id')
    .where('follows.followed_id', '=', followedId)
    .where('users.deleted_at', 'is', null)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The users someone follows, in id order (the primary key's order). */
export async function listFollowed(db: Db, followerId: number): Promise<Array<{ id: number; username: string }>> {
  const rows = await liveFollows(db, followerId).select(['follows.followed_id', 'users.username']).orderBy('follows.followed_id').execute();
  return rows.map((r) => ({ id: Number(r.followed_id), username: r.username }));
}
