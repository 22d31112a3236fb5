// The activity feed: every bet of the users the caller follows, in its current
// state, latest event first. Read from the caller's timeline merged with the
// few heavily followed traders they follow (src/services/timeline.ts), so a
// page costs its depth, not the number of followed users.
import type { AppContext } from '../context.js';
import type { FeedPage } from '../domain/feed.js';
import { type FeedRow, feedPage, heavilyFollowedBy } from '../repositories/timeline.js';
import type { FeedItem } from '../schemas/social.js';
import { toBetView } from './bet-views.js';
import { type ThesisDeps, withTheses } from './theses.js';

/** The part of the context this module uses. */
export type FeedDeps = Pick<AppContext, 'clock' | 'db' | 'prices'> & ThesisDeps;

/** A bet of the feed: its view with its owner, the two added to the view rather than copied with it into another object. */
function toFeedItem(row: FeedRow, mark: number | undefined, now: number): FeedItem {
  const item = toBetView(row, mark, now) as FeedItem;
  item.user_id = row.user_id;
  item.username = row.username;
  return item;
}

/** One page of the caller's feed, each bet with its owner's name and, where it has one, its thesis. */
export async function feed(ctx: FeedDeps, userId: number, page: FeedPage): Promise<FeedItem[]> {
  const heavy = await heavilyFollowedBy(ctx.db, userId);
  const rows = await feedPage(ctx.db, userId, heavy, page);
  const open = [...new Set(rows.filter((r) => r.status === 'OPEN').map((r) => r.ticker))];
  // Marks fall back to the last known price, so a provider outage never fails the feed.
  const marks = open.length > 0 ? await ctx.prices.marks(open) : new Map<string, number>();
  const now = ctx.clock.now();
  const items = rows.map((r) => toFeedItem(r, marks.get(r.ticker), now));
  return withTheses(ctx, items, userId);
}
