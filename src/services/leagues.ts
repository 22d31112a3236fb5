// Leagues: creation, membership and the owner's edits (docs/leagues.md). A
// private league is visible to its members only (404 to everyone else, so an
// id reveals nothing); rules, window and members change only before the start.
import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import {
  CURRENT_SCORING_VERSION,
  effectiveStart,
  isEditable,
  joinProblem,
  leagueStatus,
  MEMBER_LIMIT_DEFAULT,
  windowProblem,
} from '../domain/leagues.js';
import { extraLeaguesOf } from '../domain/payments.js';
import { badRequest, conflict, forbidden, limitReached, notFound } from '../errors.js';
import {
  countActiveLeaguesOf,
  countMembers,
  deleteLeague,
  deleteMember,
  findLeague,
  findLeagueByCode,
  insertLeague,
  insertMember,
  type LeagueListRow,
  type LeagueRow,
  listLeagues,
  membersOf,
  membershipOf,
  updateLeague,
  updateMember,
} from '../repositories/leagues.js';
import { findUserById } from '../repositories/users.js';
import type { CreateLeagueRequest, League, LeagueList, LeagueListQuery, LeagueSummary, UpdateLeagueRequest } from '../schemas/leagues.js';

/** What leagues use of the context: a service built without Fastify passes these. */
export type LeagueDeps = Pick<AppContext, 'config' | 'database' | 'db' | 'clock' | 'events'>;

const NOT_FOUND = 'League not found';
const iso = (t: number) => new Date(t).toISOString();

/** Invite codes: 10 characters without look-alikes (0/O, 1/I/L), about 50 bits. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export function newInviteCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

function summaryOf(l: LeagueRow, owner: string, memberCount: number, isMember: boolean, now: number): LeagueSummary {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    owner: { id: l.owner_id, username: owner },
    visibility: l.visibility,
    starts_at: iso(l.starts_at),
    ends_at: iso(l.ends_at),
    status: leagueStatus(l, now),
    member_limit: l.member_limit,
    member_count: memberCount,
    rules: { instruments: l.instruments, min_closed_bets: l.min_closed_bets, scoring: l.scoring },
    is_member: isMember,
  };
}

/** The league as the caller may see it, or 404: private leagues exist only for their members. */
export async function visibleLeague(db: Db, id: number, callerId: number | null): Promise<{ league: LeagueRow; member: boolean }> {
  const league = await findLeague(db, id);
  if (!league) throw notFound(NOT_FOUND);
  const member = callerId !== null && (await membershipOf(db, id, callerId)) !== undefined;
  if (league.visibility === 'private' && !member) throw notFound(NOT_FOUND);
  return { league, member };
}

async function detailOf(ctx: LeagueDeps, db: Db, league: LeagueRow, callerId: number | null): Promise<League> {
  const members = await membersOf(db, league.id);
  const mine = callerId === null ? undefined : members.find((m) => m.user_id === callerId);
  const owner = members.find((m) => m.user_id === league.owner_id)?.username ?? (await ownerName(db, league.owner_id));
  return {
    ...summaryOf(league, owner, members.length, mine !== undefined, ctx.clock.now()),
    members: members.map((m) => ({
      id: m.user_id,
      username: m.username,
      joined_at: iso(m.joined_at),
      left_at: m.left_at === null ? null : iso(m.left_at),
    })),
    invite_code: mine ? league.invite_code : null,
    daily_standing: mine ? mine.daily_standing === 1 : null,
    settled_at: league.settled_at === null ? null : iso(league.settled_at),
  };
}

async function ownerName(db: Db, ownerId: number): Promise<string> {
  const row = await db.selectFrom('users').select('username').where('id', '=', ownerId).executeTakeFirst();
  return row?.username ?? `deleted:${ownerId}`;
}

/** The most leagues not yet ended this user may be in: LEAGUE_LIMIT plus the plan's extra_leagues. */
function leagueLimitOf(ctx: LeagueDeps, user: { pay_price_id: string | null; pay_subscription_status: string | null }): number {
  return ctx.config.leagueLimit + extraLeaguesOf(user, ctx.config.leagueExtras);
}

/** Inside the caller's transaction, with the user's row locked: 403 LIMIT_REACHED at the limit. */
async function checkLeagueCapacity(ctx: LeagueDeps, trx: Db, userId: number): Promise<void> {
  await ctx.database.lock(trx, 'users', userId);
  const user = await findUserById(trx, userId);
  if (!user) throw notFound('User not found');
  const limit = leagueLimitOf(ctx, user);
  if ((await countActiveLeaguesOf(trx, userId, ctx.clock.now())) >= limit) {
    throw limitReached(`You can be in at most ${limit} leagues that have not ended on your plan`, limit);
  }
}

function parseInstant(value: string, field: string): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw badRequest(`${field} must be an ISO 8601 instant`);
  return t;
}

export async function createLeague(ctx: LeagueDeps, ownerId: number, req: CreateLeagueRequest): Promise<League> {
  const now = ctx.clock.now();
  const window = { starts_at: parseInstant(req.starts_at, 'starts_at'), ends_at: parseInstant(req.ends_at, 'ends_at') };
  const problem = windowProblem(window, now);
  if (problem) throw badRequest(problem);
  const id = await ctx.database.transaction(async (trx) => {
    await checkLeagueCapacity(ctx, trx, ownerId);
    const leagueId = await insertLeague(trx, {
      owner_id: ownerId,
      name: req.name.trim() || req.name,
      description: req.description ?? '',
      visibility: req.visibility,
      invite_code: newInviteCode(),
      starts_at: effectiveStart(window.starts_at, now),
      ends_at: window.ends_at,
      member_limit: req.member_limit ?? MEMBER_LIMIT_DEFAULT,
      instruments: req.rules.instruments,
      min_closed_bets: req.rules.min_closed_bets,
      scoring: req.rules.scoring,
      scoring_version: CURRENT_SCORING_VERSION,
      created_at: now,
      start_noticed_at: null,
      standing_day: null,
      settled_at: null,
      final_document: null,
      board_hash: null,
      record_day: null,
      record_leaf_idx: null,
    });
    await insertMember(trx, leagueId, ownerId, now);
    return leagueId;
  });
  return getLeague(ctx, id, ownerId);
}

export async function getLeague(ctx: LeagueDeps, id: number, callerId: number | null): Promise<League> {
  const { league } = await visibleLeague(ctx.db, id, callerId);
  return detailOf(ctx, ctx.db, league, callerId);
}

const toSummary = (r: LeagueListRow, now: number) => summaryOf(r, r.owner_name, r.member_count, r.is_member === 1, now);

export async function listLeaguesFor(ctx: LeagueDeps, callerId: number | null, q: LeagueListQuery): Promise<LeagueList> {
  const now = ctx.clock.now();
  if (q.code !== undefined) {
    const league = await findLeagueByCode(ctx.db, q.code);
    if (!league || q.offset > 0) return { leagues: [], total: league ? 1 : 0 };
    const members = await membersOf(ctx.db, league.id);
    const owner = members.find((m) => m.user_id === league.owner_id)?.username ?? (await ownerName(ctx.db, league.owner_id));
    const isMember = callerId !== null && members.some((m) => m.user_id === callerId);
    return { leagues: [summaryOf(league, owner, members.length, isMember, now)], total: 1 };
  }
  // Without a session there is nothing of "mine": the public ones open to join.
  const scope = callerId === null ? 'open' : (q.scope ?? 'all');
  const { rows, total } = await listLeagues(ctx.db, { userId: callerId, scope, now, limit: q.limit, offset: q.offset });
  return { leagues: rows.map((r) => toSummary(r, now)), total };
}

/** Tells the leagueChanged handlers, in the change's transaction (its board is dropped once it commits). */
function changed(ctx: LeagueDeps, trx: Db, leagueId: number): Promise<void> {
  return ctx.events.emit(trx, 'leagueChanged', { leagueId });
}

/** Owner-only edits before the start; any member's own daily-standing choice at any time. */
export async function updateLeagueAs(ctx: LeagueDeps, id: number, callerId: number, req: UpdateLeagueRequest): Promise<League> {
  const { daily_standing, ...edits } = req;
  await ctx.database.transaction(async (trx) => {
    const { league, member } = await visibleLeague(trx, id, callerId);
    const locked = (await ctx.database.lock(trx, 'leagues', id)) ?? league;
    if (daily_standing !== undefined) {
      if (!member) throw forbidden('Only members choose their daily standing');
      await updateMember(trx, id, callerId, { daily_standing: daily_standing ? 1 : 0 });
    }
    if (Object.keys(edits).length === 0) return changed(ctx, trx, id);
    if (locked.owner_id !== callerId) throw forbidden('Only the owner edits the league');
    const now = ctx.clock.now();
    if (!isEditable(locked, now)) throw conflict('The league has started: its rules and window are fixed');
    const window = {
      starts_at: edits.starts_at === undefined ? locked.starts_at : parseInstant(edits.starts_at, 'starts_at'),
      ends_at: edits.ends_at === undefined ? locked.ends_at : parseInstant(edits.ends_at, 'ends_at'),
    };
    if (edits.starts_at !== undefined || edits.ends_at !== undefined) {
      const problem = windowProblem(window, now);
      if (problem) throw badRequest(problem);
    }
    if (edits.member_limit !== undefined && edits.member_limit < (await countMembers(trx, id))) {
      throw badRequest('member_limit is below the number of members');
    }
    await updateLeague(trx, id, {
      ...(edits.name === undefined ? {} : { name: edits.name }),
      ...(edits.description === undefined ? {} : { description: edits.description }),
      ...(edits.visibility === undefined ? {} : { visibility: edits.visibility }),
      ...(edits.member_limit === undefined ? {} : { member_limit: edits.member_limit }),
      ...(edits.rules ?? {}),
      starts_at: effectiveStart(window.starts_at, now),
      ends_at: window.ends_at,
    });
    await changed(ctx, trx, id);
  });
  return getLeague(ctx, id, callerId);
}

/** The owner's league, in the caller's transaction: 404 when invisible, 403 to other members, 409 once started. */
async function ownedBeforeStart(ctx: LeagueDeps, trx: Db, id: number, callerId: number): Promise<LeagueRow> {
  await visibleLeague(trx, id, callerId);
  const league = await ctx.database.lock(trx, 'leagues', id);
  if (!league) throw notFound(NOT_FOUND);
  if (league.owner_id !== callerId) throw forbidden('Only the owner may do this');
  if (!isEditable(league, ctx.clock.now())) throw conflict('The league has started');
  return league;
}

export async function deleteLeagueAs(ctx: LeagueDeps, id: number, callerId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    await ownedBeforeStart(ctx, trx, id, callerId);
    await deleteLeague(trx, id);
    await changed(ctx, trx, id);
  });
}

export async function rotateCode(ctx: LeagueDeps, id: number, callerId: number): Promise<{ invite_code: string }> {
  const code = newInviteCode();
  await ctx.database.transaction(async (trx) => {
    await ownedBeforeStart(ctx, trx, id, callerId);
    await updateLeague(trx, id, { invite_code: code });
  });
  return { invite_code: code };
}

export async function removeMember(ctx: LeagueDeps, id: number, callerId: number, userId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    const league = await ownedBeforeStart(ctx, trx, id, callerId);
    if (userId === league.owner_id) throw badRequest('The owner cannot be removed; delete the league instead');
    if (!(await membershipOf(trx, id, userId))) throw notFound('Member not found');
    await deleteMember(trx, id, userId);
    await changed(ctx, trx, id);
  });
}

/**
 * Joins under the league's row lock (members are counted after it is held,
 * so parallel joins at the limit admit exactly the limit) and the user's
 * (the league limit). Joining again is a success.
 */
async function join(ctx: LeagueDeps, league: LeagueRow, userId: number): Promise<League> {
  await ctx.database.transaction(async (trx) => {
    const locked = await ctx.database.lock(trx, 'leagues', league.id);
    if (!locked) throw notFound(NOT_FOUND);
    if (await membershipOf(trx, league.id, userId)) return changed(ctx, trx, league.id);
    const problem = joinProblem(locked, ctx.clock.now(), await countMembers(trx, league.id));
    if (problem) throw conflict(problem.error);
    await checkLeagueCapacity(ctx, trx, userId);
    await insertMember(trx, league.id, userId, ctx.clock.now());
    await changed(ctx, trx, league.id);
  });
  return getLeague(ctx, league.id, userId);
}

export async function joinByCode(ctx: LeagueDeps, userId: number, code: string): Promise<League> {
  const league = await findLeagueByCode(ctx.db, code);
  if (!league) throw notFound('No league has this invite code');
  return join(ctx, league, userId);
}

/** A public league by id; a private one is joined only with its code (404 here, as for any stranger). */
export async function joinById(ctx: LeagueDeps, userId: number, id: number): Promise<League> {
  const { league, member } = await visibleLeague(ctx.db, id, userId);
  if (member) return getLeague(ctx, id, userId);
  return join(ctx, league, userId);
}

/** Before the start the membership goes; after it the member stays on the board to the end. */
export async function leaveLeague(ctx: LeagueDeps, id: number, userId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    const { league, member } = await visibleLeague(trx, id, userId);
    if (!member) throw notFound('You are not a member of this league');
    if (league.owner_id === userId) throw badRequest('The owner cannot leave; delete the league before its start instead');
    const now = ctx.clock.now();
    const status = leagueStatus(league, now);
    if (status === 'upcoming') await deleteMember(trx, id, userId);
    else if (status === 'running') {
      // Leaving twice keeps the first departure.
      if ((await membershipOf(trx, id, userId))?.left_at === null) await updateMember(trx, id, userId, { left_at: now });
    } else throw conflict('This league has ended');
    await changed(ctx, trx, id);
  });
}
