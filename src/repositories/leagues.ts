// Queries on leagues and their members. Each takes the database or the
// caller's transaction first.
import { sql } from 'kysely';
import { betColumnsOf } from '../db/bet-columns.js';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { LeagueMembersTable, LeaguesTable } from '../db/tables.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { isPossibleId } from '../domain/ids.js';
import type { LeagueBet, LeagueTally } from '../domain/leagues.js';

export type LeagueRow = Selectable<LeaguesTable>;
export type LeagueMemberRow = Selectable<LeagueMembersTable>;

export async function insertLeague(db: Db, league: Insertable<LeaguesTable>): Promise<number> {
  const row = await db.insertInto('leagues').values(league).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findLeague(db: Db, id: number): Promise<LeagueRow | undefined> {
  if (!isPossibleId(id)) return undefined;
  return db.selectFrom('leagues').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findLeagueByCode(db: Db, code: string): Promise<LeagueRow | undefined> {
  return db.selectFrom('leagues').selectAll().where('invite_code', '=', code).executeTakeFirst();
}

export async function updateLeague(db: Db, id: number, patch: Updateable<LeaguesTable>): Promise<void> {
  await db.updateTable('leagues').set(patch).where('id', '=', id).execute();
}

export async function deleteLeague(db: Db, id: number): Promise<void> {
  await db.deleteFrom('league_members').where('league_id', '=', id).execute();
  await db.deleteFrom('leagues').where('id', '=', id).execute();
}

const MEMBER_COLUMNS = [
  'm.user_id',
  'u.username',
  'm.joined_at',
  'm.left_at',
  'm.daily_standing',
  'm.trades',
  'm.cancels',
  'm.gain_sum',
  'm.alpha_n',
  'm.alpha_sum',
  'm.alpha_sq_sum',
  'm.early_closes',
] as const;

/** Members with their current public names (a deleted account's anonymous one) and tallies, by joining order. */
export async function membersOf(db: Db, leagueId: number) {
  return db
    .selectFrom('league_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([...MEMBER_COLUMNS])
    .where('m.league_id', '=', leagueId)
    .orderBy('m.joined_at')
    .orderBy('m.user_id')
    .execute();
}

export async function membershipOf(db: Db, leagueId: number, userId: number): Promise<LeagueMemberRow | undefined> {
  return db.selectFrom('league_members').selectAll().where('league_id', '=', leagueId).where('user_id', '=', userId).executeTakeFirst();
}

export async function countMembers(db: Db, leagueId: number): Promise<number> {
  const row = await db
    .selectFrom('league_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('league_id', '=', leagueId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertMember(db: Db, leagueId: number, userId: number, now: number): Promise<void> {
  await db.insertInto('league_members').values({ league_id: leagueId, user_id: userId, joined_at: now, left_at: null }).execute();
}

export async function deleteMember(db: Db, leagueId: number, userId: number): Promise<void> {
  await db.deleteFrom('league_members').where('league_id', '=', leagueId).where('user_id', '=', userId).execute();
}

export async function updateMember(db: Db, leagueId: number, userId: number, patch: Updateable<LeagueMembersTable>): Promise<void> {
  await db.updateTable('league_members').set(patch).where('league_id', '=', leagueId).where('user_id', '=', userId).execute();
}

/** Leagues not yet ended the user is in (and has not left): what the league limit counts. */
export async function countActiveLeaguesOf(db: Db, userId: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('league_members as m')
    .innerJoin('leagues as l', 'l.id', 'm.league_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('m.user_id', '=', userId)
    .where('m.left_at', 'is', null)
    .where('l.ends_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface LeagueListRow extends LeagueRow {
  owner_name: string;
  member_count: number;
  is_member: number;
}

/**
 * The caller's leagues (newest start first) and public leagues not started
 * that the caller is not in (soonest first): one ordered list, paged.
 */
export async function listLeagues(
  db: Db,
  q: { userId: number | null; scope: 'all' | 'mine' | 'open'; now: number; limit: number; offset: number },
): Promise<{ rows: LeagueListRow[]; total: number }> {
  const uid = q.userId ?? 0;
  const mine = sql<number>`exists (select 1 from league_members mm where mm.league_id = l.id and mm.user_id = ${uid})`;
  const base = db.selectFrom('leagues as l').where((eb) => {
    const own = eb.exists(
      eb.selectFrom('league_members as mm').select('mm.user_id').whereRef('mm.league_id', '=', 'l.id').where('mm.user_id', '=', uid),
    );
    const open = eb.and([eb('l.visibility', '=', 'public'), eb('l.starts_at', '>', q.now), eb.not(own)]);
    if (q.scope === 'mine') return own;
    if (q.scope === 'open') return open;
    return eb.or([own, open]);
  });
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .innerJoin('users as o', 'o.id', 'l.owner_id')
    .selectAll('l')
    .select('o.username as owner_name')
    .select(sql<number>`(select count(*) from league_members c where c.league_id = l.id)`.as('member_count'))
    .select(sql<number>`case when ${mine} then 1 else 0 end`.as('is_member'))
    .orderBy(sql`case when ${mine} then 0 else 1 end`)
    .orderBy(sql`case when ${mine} then -l.starts_at else l.starts_at end`)
    .orderBy('l.id')
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  return {
    rows: rows.map((r) => ({ ...r, member_count: Number(r.member_count), is_member: Number(r.is_member) })),
    total: Number(total.n),
  };
}

/** A bet's columns as the league queries read them (the join with members takes the owner from the membership). */
const BETS = ['b.id', ...betColumnsOf('b')] as const;
const MEMBERS_BETS = betColumnsOf('b', ['user_id']);

type TallyColumn = keyof Required<LeagueTally>;
const TALLY_TYPES: Record<TallyColumn, 'integer' | 'double precision'> = {
  trades: 'integer',
  cancels: 'integer',
  gain_sum: 'double precision',
  alpha_n: 'integer',
  alpha_sum: 'double precision',
  alpha_sq_sum: 'double precision',
  early_closes: 'integer',
};
type TallyDeltas = { [K in TallyColumn as `v1_${K}` | `v2_${K}`]: number };

/** The scoring version of the league a membership row is in (docs/leagues.md). */
const memberLeagueVersion = sql<number>`(select lv.scoring_version from leagues lv where lv.id = league_members.league_id)`;

const addToTalliesQuery = prepared((db, v: TallyDeltas & { user_id: number; opened_at: number; closed_at: number; kind: 'stocks' | 'crypto' }) => {
  // Each column adds the delta of its league's scoring version; the casts give PostgreSQL the type of parameters in a CASE.
  const add = (c: TallyColumn) => {
    const type = sql.raw(TALLY_TYPES[c]);
    return sql<number>`${sql.ref(c)} + case when ${memberLeagueVersion} = 2 then cast(${v[`v2_${c}`]} as ${type}) else cast(${v[`v1_${c}`]} as ${type}) end`;
  };
  return db
    .updateTable('league_members')
    .set({
      trades: add('trades'),
      cancels: add('cancels'),
      gain_sum: add('gain_sum'),
      alpha_n: add('alpha_n'),
      alpha_sum: add('alpha_sum'),
      alpha_sq_sum: add('alpha_sq_sum'),
      early_closes: add('early_closes'),
    })
    .where('user_id', '=', v.user_id)
    .where('league_id', 'in', (eb) =>
      eb
        .selectFrom('leagues')
        .select('id')
        .where('starts_at', '<=', v.opened_at)
        .where('ends_at', '>', v.opened_at)
        .where('ends_at', '>=', v.closed_at)
        .where('instruments', 'in', ['all', v.kind])
        .where('settled_at', 'is', null),
    );
});

const ZERO: Required<LeagueTally> = { trades: 0, cancels: 0, gain_sum: 0, alpha_n: 0, alpha_sum: 0, alpha_sq_sum: 0, early_closes: 0 };

/**
 * Adds a finished bet to its owner's tally in every league it counts in:
 * opened within the window, finished by the end, on counted instruments;
 * a version-1 league adds `raw`, a version-2 league `ranked` (null:
 * nothing). One statement, through the member's rows
 * (league_members_user_idx); a user in no league touches nothing.
 */
export async function addToTallies(
  db: Db,
  bet: { user_id: number; opened_at: number; closed_at: number; crypto: boolean },
  raw: LeagueTally | null,
  ranked: LeagueTally | null = raw,
): Promise<void> {
  const statement = addToTalliesStatement(db, bet, raw, ranked);
  if (statement) await db.executeQuery(statement);
}

/** addToTallies's statement, to send with others; null when there is nothing to add. */
export function addToTalliesStatement(
  db: Db,
  bet: { user_id: number; opened_at: number; closed_at: number; crypto: boolean },
  raw: LeagueTally | null,
  ranked: LeagueTally | null = raw,
) {
  if (!raw && !ranked) return null;
  const v1 = { ...ZERO, ...raw };
  const v2 = { ...ZERO, ...ranked };
  const values = {} as TallyDeltas;
  for (const c of Object.keys(ZERO) as TallyColumn[]) {
    values[`v1_${c}`] = v1[c];
    values[`v2_${c}`] = v2[c];
  }
  return addToTalliesQuery.statement(db, {
    ...values,
    user_id: bet.user_id,
    opened_at: bet.opened_at,
    closed_at: bet.closed_at,
    kind: bet.crypto ? 'crypto' : 'stocks',
  });
}

export type LeagueMember = Awaited<ReturnType<typeof membersOf>>[number];

/**
 * A board's inputs in one statement, so they are one snapshot (a bet that
 * finishes meanwhile is either open here or in its owner's tally, never both):
 * the members with their tallies, and their bets opened within the window
 * and still open at `asOf`. While the league runs those are the open ones
 * (bets (user_id, status): a member has few); after its end, also the ones
 * finished after it (a range per member on bets (user_id, opened_at)).
 */
export async function membersAndOpenBets(
  db: Db,
  league: { id: number; starts_at: number; ends_at: number },
  asOf: number,
): Promise<{ members: LeagueMember[]; open: LeagueBet[] }> {
  const rows = await db
    .selectFrom('league_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .leftJoin('bets as b', (j) => {
      const member = j.onRef('b.user_id', '=', 'm.user_id');
      if (asOf < league.ends_at) {
        // "+ 0" keeps the planners off (user_id, opened_at), which would walk
        // every bet of the window; bets_user_open_idx holds only the open ones.
        const opened = sql<number>`${sql.ref('b.opened_at')} + 0`;
        return member.on('b.status', '=', sql.lit('OPEN')).on(opened, '>=', league.starts_at).on(opened, '<', league.ends_at);
      }
      return member
        .on('b.opened_at', '>=', league.starts_at)
        .on('b.opened_at', '<', league.ends_at)
        .on((eb) => eb.or([eb('b.status', '=', 'OPEN'), eb('b.closed_at', '>', asOf)]));
    })
    .select([...MEMBER_COLUMNS, 'b.id as bet_id', ...MEMBERS_BETS])
    .where('m.league_id', '=', league.id)
    .orderBy('m.joined_at')
    .orderBy('m.user_id')
    .execute();
  const members: LeagueMember[] = [];
  const open: LeagueBet[] = [];
  for (const r of rows) {
    if (members.at(-1)?.user_id !== r.user_id) {
      const { user_id, username, joined_at, left_at, daily_standing, trades, cancels, gain_sum, alpha_n, alpha_sum, alpha_sq_sum, early_closes } = r;
      members.push({
        user_id,
        username,
        joined_at,
        left_at,
        daily_standing,
        trades,
        cancels,
        gain_sum,
        alpha_n,
        alpha_sum,
        alpha_sq_sum,
        early_closes,
      });
    }
    if (r.bet_id === null) continue;
    open.push({
      id: r.bet_id,
      user_id: r.user_id,
      ticker: r.ticker!,
      direction: r.direction!,
      status: r.status!,
      entry_price: r.entry_price!,
      exit_price: r.exit_price,
      percentage_gain: r.percentage_gain,
      opened_at: r.opened_at!,
      closed_at: r.closed_at,
      benchmark_entry: r.benchmark_entry,
      benchmark_exit: r.benchmark_exit,
      committed_price: r.committed_price,
      benchmark_committed: r.benchmark_committed,
      ranked_gain: r.ranked_gain,
      unranked_reason: r.unranked_reason,
    });
  }
  return { members, open };
}

/** A page of members' bets in the window, newest opening first, with the owner's name. */
export async function windowFeed(db: Db, userIds: number[], startsAt: number, endsAt: number, limit: number, offset: number) {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('bets as b')
    .innerJoin('users as u', 'u.id', 'b.user_id')
    .select([...BETS, 'u.username'])
    .where('b.user_id', 'in', userIds)
    .where('b.opened_at', '>=', startsAt)
    .where('b.opened_at', '<', endsAt)
    .orderBy('b.opened_at', 'desc')
    .orderBy('b.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Each user's record chain head at an instant (the latest entry at or before it); users without one are absent. */
export async function chainHeadsAt(db: Db, userIds: number[], at: number) {
  if (userIds.length === 0) return [];
  const latest = db
    .selectFrom('record_entries')
    .select(['user_id'])
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('user_id', 'in', userIds)
    .where('at', '<=', at)
    .groupBy('user_id')
    .as('latest');
  return db
    .selectFrom(latest)
    .innerJoin('record_entries as e', (j) => j.onRef('e.user_id', '=', 'latest.user_id').onRef('e.seq', '=', 'latest.seq'))
    .select(['e.user_id', 'e.seq', 'e.hash'])
    .orderBy('e.user_id')
    .execute();
}

// The workers' queries.

/** Leagues that have started and whose start notices have not gone out. */
export async function leaguesToAnnounce(db: Db, now: number, limit: number): Promise<LeagueRow[]> {
  return db
    .selectFrom('leagues')
    .selectAll()
    .where('start_noticed_at', 'is', null)
    .where('starts_at', '<=', now)
    .where('ends_at', '>', now)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Takes a once-only step on a league (the first caller wins): true when this caller took it. */
async function claim(db: Db, id: number, column: 'start_noticed_at' | 'settled_at', value: number, extra: Updateable<LeaguesTable> = {}) {
  const r = await db
    .updateTable('leagues')
    .set({ [column]: value, ...extra })
    .where('id', '=', id)
    .where(column, 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export const claimStartNotice = (db: Db, id: number, now: number) => claim(db, id, 'start_noticed_at', now);

export async function claimStandingDay(db: Db, id: number, day: string): Promise<boolean> {
  const r = await db
    .updateTable('leagues')
    .set({ standing_day: day })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('standing_day', 'is', null), eb('standing_day', '<', day)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Running leagues started by `startedBy` whose standing of `day` has not gone out. */
export async function leaguesForStanding(db: Db, now: number, day: string, startedBy: number, limit: number): Promise<LeagueRow[]> {
  return db
    .selectFrom('leagues')
    .selectAll()
    .where('starts_at', '<=', Math.min(now, startedBy))
    .where('ends_at', '>', now)
    .where((eb) => eb.or([eb('standing_day', 'is', null), eb('standing_day', '<', day)]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Ended leagues whose final board is not yet settled. */
export async function leaguesToSettle(db: Db, now: number, limit: number): Promise<LeagueRow[]> {
  return db.selectFrom('leagues').selectAll().where('settled_at', 'is', null).where('ends_at', '<=', now).orderBy('id').limit(limit).execute();
}

export const claimSettlement = (db: Db, id: number, now: number, board: { final_document: string; board_hash: string }) =>
  claim(db, id, 'settled_at', now, board);

// The record's queries: settled boards become leaves of the next day published.

/** Settled leagues not yet in a day's root, settled before an instant, in id order. */
export async function boardsToPublish(db: Db, before: number) {
  return db
    .selectFrom('leagues')
    .select(['id', 'board_hash'])
    .where('record_day', 'is', null)
    .where('settled_at', 'is not', null)
    .where('settled_at', '<', before)
    .orderBy('id')
    .execute();
}

export async function setBoardLeaf(db: Db, id: number, day: string, idx: number): Promise<void> {
  await db.updateTable('leagues').set({ record_day: day, record_leaf_idx: idx }).where('id', '=', id).execute();
}

/** The league leaves of a published day, in leaf order. */
export async function boardLeavesOf(db: Db, day: string) {
  return db.selectFrom('leagues').select(['id', 'board_hash', 'record_leaf_idx']).where('record_day', '=', day).orderBy('record_leaf_idx').execute();
}

/**
 * The tickers of OPEN bets held by members of leagues that have ended and are
 * not settled: their end quotes must be published. The ended leagues are read
 * first (almost always none: the league job settles them within seconds), and
 * only their members' bets then: as one join the planners began at the bets,
 * walking every open bet (8 ms of the event loop each second on SQLite).
 */
export async function tickersAtLeagueEnds(db: Db, now: number, limit: number): Promise<Array<{ ticker: string; at: number }>> {
  const ended = await db
    .selectFrom('leagues')
    .select('id')
    .where('settled_at', 'is', null)
    .where('ends_at', '<=', now)
    .orderBy('ends_at')
    .limit(limit)
    .execute();
  if (ended.length === 0) return [];
  const rows = await db
    .selectFrom('leagues as l')
    .innerJoin('league_members as m', 'm.league_id', 'l.id')
    .innerJoin('bets as b', 'b.user_id', 'm.user_id')
    .select(['b.ticker', 'l.ends_at'])
    .distinct()
    .where(
      'l.id',
      'in',
      ended.map((l) => l.id),
    )
    .where('b.status', '=', sql.lit('OPEN'))
    .whereRef('b.opened_at', '>=', 'l.starts_at')
    .whereRef('b.opened_at', '<', 'l.ends_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ticker: r.ticker, at: Number(r.ends_at) }));
}

/** The earliest end among leagues not settled yet (null when none): quotes at or after it may still mark their boards. */
export async function earliestUnsettledEnd(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('leagues')
    .select((c) => c.fn.min('ends_at').as('v'))
    .where('settled_at', 'is', null)
    .executeTakeFirst();
  return row?.v === null || row?.v === undefined ? null : Number(row.v);
}
