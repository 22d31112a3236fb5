import type { Db } from '../db/database.js';
import { deletedIdentity } from '../domain/accounts.js';
import { forgetTimelinesOf } from './timeline.js';

export async function deleteOtherSessions(db: Db, userId: number, keepSessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepSessionId).execute();
}

/**
 * Removes what identifies a person: email, password hash, sessions, follows,
 * payment ids, leaderboard rows. Bets stay (the record names users by id only);
 * the public name becomes anonymous, a value no registration can hold, so
 * this update cannot meet a unique violation.
 */
export async function anonymiseUser(db: Db, userId: number, now: number): Promise<void> {
  const anonymous = deletedIdentity(userId);
  await db
    .updateTable('users')
    .set({
      username: anonymous.username,
      username_lower: anonymous.username,
      email: anonymous.email,
      password_hash: '',
      pay_customer_id: null,
      pay_subscription_id: null,
      pay_subscription_status: null,
      pay_price_id: null,
      extra_bets: 0,
      extra_slots: 0,
      deleted_at: now,
    })
    .where('id', '=', userId)
    .execute();
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  // The feed's rows go while the follows that find them are still there, with the
  // user's row (updated above) locked against their bets' events.
  await forgetTimelinesOf(db, userId);
  await db
    .deleteFrom('follows')
    .where((eb) => eb.or([eb('follower_id', '=', userId), eb('followed_id', '=', userId)]))
    .execute();
  await db.deleteFrom('leaderboard').where('user_id', '=', userId).execute();
  await db.deleteFrom('ranked_leaderboard').where('user_id', '=', userId).execute();
}
