// What a link to a public page of the web app says in a chat or a social post:
// the title and description a preview crawler reads from the page's HTML (it
// runs no JavaScript, so the server writes them; src/http/web-app.ts).
import type { AppContext } from '../context.js';
import { findBetById } from '../repositories/bets.js';
import { findUserById } from '../repositories/users.js';
import { findThesis } from '../repositories/theses.js';
import { thesisServedTo } from '../domain/thesis.js';

/** The part of the context this module uses. */
export type LinkPreviewDeps = Pick<AppContext, 'db' | 'config'>;

export interface LinkPreview {
  title: string;
  description: string;
}

const gainFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const priceFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });

function gain(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '−' : ''}${gainFormat.format(Math.abs(n))}%`;
}

/** "1 trade", "2 trades". */
function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A trader's public profile; null when there is no such (live) account. */
export async function profilePreview(ctx: LinkPreviewDeps, userId: number): Promise<LinkPreview | null> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return null;
  const board = await ctx.db.selectFrom('leaderboard').select(['total_score', 'total_trades']).where('user_id', '=', user.id).executeTakeFirst();
  const trades = Number(board?.total_trades ?? 0);
  return {
    title: `${user.username} on Paper Bets`,
    description:
      trades === 0
        ? `${user.username} trades paper money on Paper Bets: see their open bets, statistics and verifiable record.`
        : `${user.username}: ${gain(Number(board?.total_score ?? 0))} over ${count(trades, 'closed trade')} on Paper Bets, with statistics and a verifiable record.`,
  };
}

/** A bet's public page; null when there is no such bet. */
export async function betPreview(ctx: LinkPreviewDeps, betId: number): Promise<LinkPreview | null> {
  const bet = await findBetById(ctx.db, betId);
  if (!bet) return null;
  const owner = await findUserById(ctx.db, bet.user_id);
  const who = owner?.username ?? 'A deleted account';
  const side = bet.direction === 'LONG' ? 'long' : 'short';
  const entry = `entered at ${priceFormat.format(bet.entry_price)}`;
  const state =
    bet.status === 'OPEN'
      ? `open, ${entry}`
      : bet.status === 'CANCELLED'
        ? `cancelled, ${entry}`
        : `closed at ${priceFormat.format(bet.exit_price ?? bet.entry_price)} (${gain(bet.percentage_gain ?? 0)}), ${entry}`;
  // The thesis as a visitor sees it (a crawler is one): quoted first, while it is shown (docs/theses.md); withPreview escapes it.
  const thesis = await findThesis(ctx.db, bet.id);
  const quoted = thesis && thesisServedTo(thesis, null, ctx.config.thesisReportsToHide) ? `“${thesis.text}” ` : '';
  return {
    title: `${who}: ${bet.ticker} ${side} on Paper Bets`,
    description: `${quoted}${who} bet ${bet.ticker} goes ${bet.direction === 'LONG' ? 'up' : 'down'}: ${state}. Paper money, public record.`,
  };
}
