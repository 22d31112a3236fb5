// Which changes drop which cached read answers (ctx.answers; the leaderboard
// keeps its own). Always after the change commits, so a request arriving
// between the change and its commit cannot cache the state before it.
import type { AppContext } from '../context.js';
import { afterCommit } from '../db/transaction.js';

/**
 * How long an answer is shared. Changes made through this process drop the
 * answers they affect at once; this bounds how late another instance's
 * changes show here.
 */
export const ANSWER_CACHE_MS = 500;

/**
 * The key part for answers that show time-dependent fields (marks, the cancel
 * window): answers made in one period are not reused in the next, whatever
 * clock the service runs on.
 */
export function timeBucket(ctx: AppContext): number {
  return Math.floor(ctx.clock.now() / ANSWER_CACHE_MS);
}

export function installAnswerInvalidation(ctx: AppContext): void {
  // A bet's change alters its owner's history, portfolio and profile, and the
  // feeds following the owner (which name the owner among their users).
  ctx.betEvents.onCommitted((e) => ctx.answers.invalidate(e.bet.user_id));
  // A deleted account's name changes everywhere it shows.
  ctx.accountDeletionListeners.push(async (trx) => afterCommit(trx, () => ctx.answers.clear()));
}
