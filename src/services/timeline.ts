// Keeps the feed's timelines (migration 0034, docs/performance.md "The feed")
// in the transactions that change what they hold: a bet's event, a follow, an
// unfollow (an account's deletion: src/repositories/account-control.ts).
//
// Invariant: for every follow of a trader not in heavily_followed, the
// follower's timeline holds each of the trader's bets at its last_event_at;
// it holds nothing else. A bet's last_event_at is its opened_at until the
// event that finishes it (the only later event), so that event finds every
// follower's row by the timeline's key (follower, opened_at, bet). A heavily followed trader's bets are in no timeline.
// Every write here runs with the trader's row lock held (on PostgreSQL), so a
// follow's copy and a bet's fan-out cannot miss each other.
import type { DatabaseHandle, Db } from '../db/database.js';
import { fanOutAfterFollow, fanOutAfterUnfollow } from '../domain/feed.js';
import { copyIntoTimeline, fanOutState, markHeavilyFollowed, removeFromTimeline, unmarkHeavilyFollowed } from '../repositories/timeline.js';

/** After a new follow, in its transaction: the trader's row is locked by the caller. */
export async function timelineAfterFollow(trx: Db, followerId: number, followedId: number, maxFollowers: number): Promise<void> {
  const { heavy, followers } = await fanOutState(trx, followedId, maxFollowers);
  const next = fanOutAfterFollow(heavy, followers, maxFollowers);
  if (next === 'copy') await copyIntoTimeline(trx, followerId, followedId);
  else if (next === 'becomeHeavy') await markHeavilyFollowed(trx, followedId);
}

/** After an unfollow, in its transaction: the trader's row is locked by the caller. */
export async function timelineAfterUnfollow(trx: Db, followerId: number, followedId: number, maxFollowers: number): Promise<void> {
  await removeFromTimeline(trx, followerId, followedId);
  const { heavy, followers } = await fanOutState(trx, followedId, maxFollowers);
  if (fanOutAfterUnfollow(heavy, followers, maxFollowers) === 'becomeLight') await unmarkHeavilyFollowed(trx, followedId);
}

/**
 * Locks the two users of a follow in id order (PostgreSQL): the follower's
 * for its capacity, the trader's against their bets' events; in id order so
 * two users following each other at once cannot deadlock.
 */
export async function lockFollowPair<T>(
  database: Pick<DatabaseHandle, 'holdLock'>,
  trx: Db,
  followedId: number,
  followerId: number,
  lockFollower: () => Promise<T>,
): Promise<T> {
  if (followedId < followerId) await database.holdLock(trx, 'users', followedId);
  const follower = await lockFollower();
  if (followedId > followerId) await database.holdLock(trx, 'users', followedId);
  return follower;
}
