// The activity feed: every bet of the users the caller follows, in its current
// state, latest event first.
import type { AppContext } from '../context.js';
import type { FeedPage } from '../domain/feed.js';
import { listFollowed } from '../repositories/follows.js';
import { listFeed } from '../repositories/feed.js';
import type { FeedItem } from '../schemas/social.js';
import { toBetView } from './bet-views.js';
import { type ThesisDeps, withTheses } from './theses.js';

/** The part of the context this module uses. */
export type FeedDeps = Pick<AppContext, 'clock' | 'db' | 'prices'> & ThesisDeps;

/** One page of the feed, and the users it was made from (a change by any of them changes it). */
export async function feed(ctx: FeedDeps, userId: number, page: FeedPage): Promise<FeedItem[]> {
  const followed = await listFollowed(ctx.db, userId);
  const names = new Map(followed.map((u) => [u.id, u.username]));
  const rows = await listFeed(ctx.db, [...names.keys()], page);
  const open = [...new Set(rows.filter((r) => r.status === 'OPEN').map((r) => r.ticker))];
  // Marks fall back to the last known price, so a provider outage never fails the feed.
  const marks = open.length > 0 ? await ctx.prices.marks(open) : new Map<string, number>();
  const now = ctx.clock.now();
  const items = rows.map((r) => ({ ...toBetView(r, marks.get(r.ticker), now), user_id: r.user_id, username: names.get(r.user_id)! }));
  return withTheses(ctx, items, userId);
}
