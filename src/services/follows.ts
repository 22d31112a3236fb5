// Following and unfollowing, under the follower's capacity.
import type { AppContext } from '../context.js';
import { capacitiesOf } from '../domain/accounts.js';
import { isPossibleId } from '../domain/ids.js';
import { badRequest, limitReached, notFound } from '../errors.js';
import { deleteFollow, insertFollowWithinCapacity, isFollowing, listFollowed } from '../repositories/follows.js';
import { findUserById, lockPlanHolder } from '../repositories/users.js';
import { lockFollowPair, timelineAfterFollow, timelineAfterUnfollow } from './timeline.js';

/** What following uses of the context. */
export type FollowDeps = Pick<AppContext, 'config' | 'database' | 'db' | 'clock'>;

export type FollowAction = 'follow' | 'unfollow';

export async function changeFollow(ctx: FollowDeps, followerId: number, followedId: number, action: FollowAction): Promise<void> {
  if (followerId === followedId) throw badRequest('You cannot follow or unfollow yourself');
  if (!isPossibleId(followedId)) throw notFound('User not found');
  if (action === 'follow') await follow(ctx, followerId, followedId);
  else await unfollow(ctx, followerId, followedId);
}

async function follow(ctx: FollowDeps, followerId: number, followedId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    // The follower's row lock serialises this user's follows (as for open
    // bets), so concurrent requests cannot all pass the capacity check; the
    // trader's, their bets' events with the copy into the timeline.
    const follower = await lockFollowPair(ctx.database, trx, followedId, followerId, () => lockPlanHolder(trx, followerId));
    if (!follower) throw notFound('User not found');
    const limit = capacitiesOf(ctx.config.capacities, follower).follow_capacity;
    if (await insertFollowWithinCapacity(trx, followerId, followedId, ctx.clock.now(), limit)) {
      await timelineAfterFollow(trx, followerId, followedId, ctx.config.feedFanOutMaxFollowers);
      return;
    }
    // Nothing inserted: find out why (rare, so read only now). Following again
    // is a success, even at or over the limit.
    if (await isFollowing(trx, followerId, followedId)) return;
    if (!(await findUserById(trx, followedId))) throw notFound('User not found');
    throw limitReached(`You can follow at most ${limit} users on your plan`, limit);
  });
}

async function unfollow(ctx: FollowDeps, followerId: number, followedId: number): Promise<void> {
  // A follow of an account deleted since can still be dropped; otherwise an
  // id naming no live account is 404, as for follow. In a transaction, so
  // the delete's commit joins the group commit with the other writes. The
  // trader's row lock orders it with their bets' events (src/services/timeline.ts).
  const removed = await ctx.database.transaction(async (trx) => {
    await ctx.database.holdLock(trx, 'users', followedId);
    if (!(await deleteFollow(trx, followerId, followedId))) return false;
    await timelineAfterUnfollow(trx, followerId, followedId, ctx.config.feedFanOutMaxFollowers);
    return true;
  });
  if (removed) return;
  if (!(await findUserById(ctx.db, followedId))) throw notFound('User not found');
}

export async function followedIds(ctx: FollowDeps, followerId: number): Promise<number[]> {
  return (await listFollowed(ctx.db, followerId)).map((u) => u.id);
}
