// What follows a change, said in one place: the listeners that write in a bet
// change's own transaction (notices, the verifiable record, rankings, league
// tallies), what an account deletion removes with it, and which shared
// answers each committed change drops (src/services/shared-answers.ts).
import type { AppContext } from '../context.js';
import { forgetEmailOf } from '../repositories/email.js';
import { forgetUser } from './chat.js';
import { leagueTalliesListener } from './league-tallies.js';
import { registerNotificationListener } from './notifications.js';
import { rankingsListener } from './rankings.js';
import { recordListener } from './record.js';

export function wireServices(ctx: AppContext): void {
  registerNotificationListener(ctx.betEvents, { transport: ctx.chatTransport.name, webUrl: ctx.config.webUrl });
  ctx.betEvents.on(recordListener(ctx));
  ctx.betEvents.on(rankingsListener());
  ctx.betEvents.on(leagueTalliesListener());

  // A bet's change alters its owner's public profile; a close or settlement also every leaderboard.
  ctx.betEvents.onCommitted((e) => {
    ctx.sharedAnswers.dropProfile(e.bet.user_id);
    if (e.kind === 'closed' || e.kind === 'settled') ctx.sharedAnswers.dropLeaderboards();
  });

  ctx.accountDeletionListeners.push(forgetUser, forgetEmailOf, async () => ctx.database.onCommit(() => ctx.sharedAnswers.clear()));
}
