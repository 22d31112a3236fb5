// Public profiles: what anyone may see of a trader, without logging in.
import type { AppContext } from '../context.js';
import type { FeedPage } from '../domain/feed.js';
import { isPossibleId } from '../domain/ids.js';
import { notFound } from '../errors.js';
import { countFinishedBets } from '../repositories/bets.js';
import { findUserById } from '../repositories/users.js';
import type { Static } from '@sinclair/typebox';
import type { PublicProfileResponseSchema } from '../schemas/social.js';
import { type BetDeps, history, portfolio } from './bets.js';

/** The part of the context this module uses. */
export type ProfileDeps = Pick<AppContext, 'db' | 'sharedAnswers'> & BetDeps;

export type PublicProfile = Static<typeof PublicProfileResponseSchema>;

/** GET /user/{id}/public: the same for everyone, so shared (src/services/shared-answers.ts). */
export function publicProfile(ctx: ProfileDeps, userId: number, page: FeedPage): Promise<PublicProfile> {
  return ctx.sharedAnswers.profile(userId, `${page.limit}|${page.offset}`, () => makePublicProfile(ctx, userId, page));
}

async function makePublicProfile(ctx: ProfileDeps, userId: number, page: FeedPage): Promise<PublicProfile> {
  const user = isPossibleId(userId) ? await findUserById(ctx.db, userId) : undefined;
  if (!user) throw notFound('User not found');
  const [open, finished, total] = await Promise.all([
    portfolio(ctx, user.id),
    history(ctx, user.id, page.limit, page.offset, null),
    countFinishedBets(ctx.db, user.id),
  ]);
  // PublicUser only: never the account's email, capacities or payment ids.
  return { user: { id: user.id, username: user.username }, portfolio: open, history: finished, history_total: total };
}
