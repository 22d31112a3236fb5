// The activity feed: every bet of the users the caller follows, in its current
// state, latest event first. Read from the caller's timeline merged with the
// few heavily followed traders they follow (src/services/timeline.ts), so a
// page costs its depth, not the number of followed users.
import type { AppContext } from '../context.js';
import type { FeedPage } from '../domain/feed.js';
import { withJsonFields } from '../lib/json-text.js';
import { isStoredView } from '../repositories/bets.js';
import { thesesOf } from '../repositories/theses.js';
import { type FeedRow, feedPage, heavilyFollowedBy, type OpenFeedFields } from '../repositories/timeline.js';
import { markedOpenBet, statusBetJson } from './bet-views.js';
import { type ThesisDeps, withThesisJson } from './theses.js';

/** The part of the context this module uses. */
export type FeedDeps = Pick<AppContext, 'clock' | 'db' | 'prices'> & ThesisDeps;

/** A bet's view (JSON text of an object) with its owner added at its end, as FeedItem carries them. */
function withOwner(view: string, row: FeedRow): string {
  return withJsonFields(view, `{"user_id":${row.user_id},"username":${JSON.stringify(row.username)}}`);
}

/**
 * One page of the caller's feed as the JSON text of its answer: a finished
 * bet is its stored view as it is, an OPEN one is marked to market now, each
 * with its owner and, where it has one, its thesis as the caller may see it.
 * Nothing of a finished bet is read into an object or serialized again.
 */
export async function feedJson(ctx: FeedDeps, userId: number, page: FeedPage): Promise<string> {
  const heavy = await heavilyFollowedBy(ctx.db, userId);
  const rows = await feedPage(ctx.db, userId, heavy, page);
  const open = new Map<number, OpenFeedFields>();
  for (const r of rows) {
    if (r.v === null) throw new Error(`bet ${r.id} is finished but has no stored view (migration 0040)`);
    if (!isStoredView(r.v)) open.set(r.id, JSON.parse(r.v) as OpenFeedFields);
  }
  const tickers = [...new Set([...open.values()].map(([ticker]) => ticker))];
  // Marks fall back to the last known price, so a provider outage never fails the feed.
  const marks = tickers.length > 0 ? await ctx.prices.marks(tickers) : new Map<string, number>();
  const theses = await thesesOf(
    ctx.db,
    rows.map((r) => r.id),
  );
  const now = ctx.clock.now();
  const items = rows.map((r) => {
    const fields = open.get(r.id);
    let view = r.v as string;
    if (fields) {
      const [ticker, direction, entry_price, opened_at] = fields;
      view = statusBetJson(markedOpenBet({ id: r.id, ticker, direction, entry_price, opened_at }, marks.get(ticker), now));
    }
    view = withOwner(view, r);
    const thesis = theses.get(r.id);
    return thesis ? withThesisJson(ctx, view, thesis, userId) : view;
  });
  return `[${items.join(',')}]`;
}
