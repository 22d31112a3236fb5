// League notices (docs/leagues.md): the start, a daily standing while a
// league runs (each member may opt out), and the final result. Each is
// stored for the app (GET /notifications) and, for members with a linked
// chat, queued in the outbox, in the transaction that takes the step once
// (a conditional update on the league row), so instances never send twice.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { type BoardRow, standingText } from '../domain/leagues.js';
import { utcDate } from '../domain/market-calendar.js';
import {
  claimStandingDay,
  claimStartNotice,
  type LeagueRow,
  leaguesForStanding,
  leaguesToAnnounce,
  leaguesToSettle,
  membersOf,
} from '../repositories/leagues.js';
import { findLinkOfUser } from '../repositories/chat-links.js';
import { enqueueNotification } from '../repositories/notifications.js';
import { enqueuePush } from '../repositories/push.js';
import { addUserNotice } from '../repositories/user-notices.js';
import { currentBoard, type LeagueBoardDeps, settleLeague } from './league-boards.js';

/** The part of the context this module uses. */
export type LeagueNoticeDeps = Pick<AppContext, 'chatTransport' | 'clock' | 'config' | 'database' | 'db'> & LeagueBoardDeps;

const BATCH = 100;

type Kind = 'league_started' | 'league_standing' | 'league_final';

async function notify(ctx: LeagueNoticeDeps, trx: Db, userId: number, kind: Kind, text: string, league: LeagueRow): Promise<void> {
  const now = ctx.clock.now();
  await addUserNotice(trx, { userId, kind, text, link: `leagues/${league.id}` }, now);
  await enqueuePush(trx, { userId }, { kind: 'league_notice', text: `${text}\n${ctx.config.webUrl}leagues/${league.id}`, betId: null }, now);
  const link = await findLinkOfUser(trx, userId, ctx.chatTransport.name);
  if (link) {
    await enqueueNotification(
      trx,
      {
        user_id: userId,
        transport: link.transport,
        chat_id: link.chat_id,
        kind: 'league_notice',
        text: `${text}\n${ctx.config.webUrl}leagues/${league.id}`,
        bet_id: null,
      },
      now,
    );
  }
}

const stillIn = <T extends { left_at: number | null }>(members: T[]) => members.filter((m) => m.left_at === null);

export interface LeagueNoticeResult {
  started: number;
  standings: number;
  settled: number;
  /** Ended leagues left unsettled this pass (a price to mark an open bet with was missing). */
  deferred: number;
}

/** One pass of the league worker: start notices, today's standings, then the settlement of ended leagues. */
export async function runLeagueSteps(ctx: LeagueNoticeDeps): Promise<LeagueNoticeResult> {
  const result: LeagueNoticeResult = { started: 0, standings: 0, settled: 0, deferred: 0 };
  const now = ctx.clock.now();

  for (const league of await leaguesToAnnounce(ctx.db, now, BATCH)) {
    const done = await ctx.database.transaction(async (trx) => {
      if (!(await claimStartNotice(trx, league.id, now))) return false;
      const members = stillIn(await membersOf(trx, league.id));
      const text = `${league.name} has started with ${members.length} members. It ends ${new Date(league.ends_at).toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
      for (const m of members) await notify(ctx, trx, m.user_id, 'league_started', text, league);
      return true;
    });
    if (done) result.started++;
  }

  // The standing of a day goes out once per league, from the first UTC day after the one it started on.
  const today = utcDate(now);
  const todayStart = Date.parse(`${today}T00:00:00Z`);
  for (const league of await leaguesForStanding(ctx.db, now, today, todayStart, BATCH)) {
    const board = await currentBoard(ctx, league);
    const done = await ctx.database.transaction(async (trx) => {
      if (!(await claimStandingDay(trx, league.id, today))) return false;
      const members = await membersOf(trx, league.id);
      for (const m of stillIn(members)) {
        if (m.daily_standing !== 1) continue;
        const row = board.find((r) => r.user_id === m.user_id);
        await notify(ctx, trx, m.user_id, 'league_standing', standingText(league.name, row, members.length, false), league);
      }
      return true;
    });
    if (done) result.standings++;
  }

  for (const league of await leaguesToSettle(ctx.db, now, BATCH)) {
    const settled = await settleLeague(ctx, league, async (trx, { rows }) => {
      const members = await membersOf(trx, league.id);
      for (const m of stillIn(members)) {
        const row = rows.find((r: BoardRow) => r.user_id === m.user_id);
        await notify(ctx, trx, m.user_id, 'league_final', standingText(league.name, row, members.length, true), league);
      }
    });
    if (settled) result.settled++;
    else result.deferred++;
  }
  return result;
}
