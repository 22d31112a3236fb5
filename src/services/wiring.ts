// What follows a change, said in one place: the handlers of each event
// (src/services/events.ts), those that write in the change's own transaction
// in the order they run there, then those that drop the shared answers
// (src/services/shared-answers.ts) the committed change alters.
import type { AppContext } from '../context.js';
import { deleteAlertsOf } from '../repositories/alerts.js';
import { forgetEmailOf } from '../repositories/email.js';
import { forgetTheses } from '../repositories/theses.js';
import { forgetDevicesOf } from '../repositories/push.js';
import { buttonAnswerHandler, forgetUser } from './chat.js';
import { betAggregatesHandler } from './bet-aggregates.js';
import { noticesHandler } from './notifications.js';
import { committedRecordHandler, recordHandler } from './record.js';

export function wireServices(ctx: AppContext): void {
  const { events, sharedAnswers } = ctx;

  // The order of the writes and of the locks they take. The change holds the bet's row lock (an opening, the owner's);
  // the record chain then takes the owner's row lock with its head (on PostgreSQL a close's or cancel's update takes it in
  // the same statement, after the bet's row), and does so first: a commitment's entry
  // (betCommitted, below) takes it before the same transaction's close or settlement adds to the owner's leaderboard
  // row, so every transaction takes the owner's row before that one, never after. A chat's answer is recorded last.
  events.inTransaction('betChanged', recordHandler(ctx));
  // The history place, leaderboards, day statistics, league tallies and the followers' timelines: one statement on
  // PostgreSQL. After the record's handler, which holds the owner's row lock: a follow or unfollow of the owner has
  // committed before the timelines' statement reads the follows, or waits for it (src/services/timeline.ts).
  events.inTransaction('betChanged', betAggregatesHandler());
  events.inTransaction('betChanged', noticesHandler({ transport: ctx.chatTransport.name, webUrl: ctx.config.webUrl }));
  events.inTransaction('betChanged', buttonAnswerHandler(ctx));
  // A commitment is recorded in its owner's chain: the bet's row lock is held (catchUp, closeBet), then the owner's.
  events.inTransaction('betCommitted', committedRecordHandler(ctx));
  // A bet's change alters its owner's public profile; a close or settlement also every leaderboard, the ranked board's included.
  events.afterCommit('betChanged', (e) => {
    sharedAnswers.dropProfile(e.bet.user_id);
    if (e.kind === 'closed' || e.kind === 'settled') sharedAnswers.dropLeaderboards();
  });

  // Parts of the service holding more personal data remove it with the account.
  events.inTransaction('accountDeleted', (trx, { userId }) => forgetUser(trx, userId));
  events.inTransaction('accountDeleted', (trx, { userId }) => forgetEmailOf(trx, userId));
  events.inTransaction('accountDeleted', (trx, { userId }) => deleteAlertsOf(trx, userId));
  events.inTransaction('accountDeleted', (trx, { userId }) => forgetTheses(trx, userId));
  events.inTransaction('accountDeleted', (trx, { userId }) => forgetDevicesOf(trx, userId));
  // A deleted account's name changes everywhere it shows.
  events.afterCommit('accountDeleted', () => sharedAnswers.clear());

  // A change of members or rules made here shows at once to whoever made it.
  events.afterCommit('leagueChanged', ({ leagueId }) => sharedAnswers.dropLeagueBoard(leagueId));
}
