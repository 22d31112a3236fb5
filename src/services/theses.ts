// Theses (issue 38, docs/theses.md): given at opening only and never edited;
// committed in the opening entry of the record as a salted hash; hidden by
// the owner, or withheld from others after enough counted reports.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import {
  newThesisSalt,
  reportCounts,
  type StoredThesis,
  thesisHash,
  thesisProblem,
  thesisServedTo,
  thesisState,
  type ThesisState,
} from '../domain/thesis.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { findBetById } from '../repositories/bets.js';
import { withJsonFields } from '../lib/json-text.js';
import { addReport, findThesis, hideThesis, insertThesis, type ThesisRow, reporterStanding } from '../repositories/theses.js';

export type ThesisDeps = Pick<AppContext, 'config' | 'db' | 'database' | 'clock' | 'sharedAnswers'>;

/** A thesis checked and salted before the opening's transaction: its hash goes into the opening entry. */
export interface NewThesis {
  text: string;
  salt: string;
  hash: string;
}

/** Checks a thesis as given on POST /bet/open (400 naming the problem); undefined when none was given. */
export function prepareThesis(text: string | undefined): NewThesis | undefined {
  if (text === undefined) return undefined;
  const problem = thesisProblem(text);
  if (problem) throw badRequest(problem);
  const salt = newThesisSalt();
  return { text, salt, hash: thesisHash(salt, text) };
}

/** Stores a bet's thesis in the opening's transaction. */
export async function storeThesis(trx: Db, bet: { id: number; user_id: number }, thesis: NewThesis, now: number): Promise<void> {
  await insertThesis(trx, { bet_id: bet.id, user_id: bet.user_id, text: thesis.text, salt: thesis.salt, hash: thesis.hash, created_at: now });
}

/**
 * What a bet's views carry of its thesis (nothing for a bet without one):
 * its state, and its text and salt while they are served to this viewer
 * (null: a visitor, or an answer shared by everyone).
 */
export interface ThesisFields {
  thesis?: string | null;
  thesis_salt?: string | null;
  thesis_state?: ThesisState;
}

/**
 * Sets a view's thesis fields on the view itself. Not a copy by spread: V8
 * copies these views (whose close_reason is added after their literal) on
 * its slow path, several microseconds each, and the copies' property
 * storage is promoted to the old generation, which then needs a full
 * collection about every second under load (docs/performance.md).
 */
function addThesis<T extends object>(view: T, t: ThesisOfView | undefined, viewerId: number | null, reportsToHide: number): T & ThesisFields {
  const out = view as T & ThesisFields;
  if (!t) return out;
  const served = thesisServedTo(t, viewerId, reportsToHide);
  out.thesis = served ? t.text : null;
  out.thesis_salt = served ? t.salt : null;
  out.thesis_state = thesisState(t, reportsToHide);
  return out;
}

/** What a view needs of a thesis: its text and salt, and what decides whether they are served. */
export type ThesisOfView = StoredThesis & Pick<ThesisRow, 'text' | 'salt'>;

/**
 * A bet's stored view (the JSON text of an object, finishedView) with its
 * thesis fields added at its end, as addThesis sets them on a view object.
 */
export function withThesisJson(ctx: ThesisDeps, view: string, thesis: ThesisOfView, viewerId: number | null): string {
  const fields = JSON.stringify(addThesis({}, thesis, viewerId, ctx.config.thesisReportsToHide));
  return withJsonFields(view, fields);
}

/** Adds its thesis fields, from its thesis row already read (or none), to one bet's view made for this answer. */
export function withThesisRow<T extends { id: number }>(
  ctx: ThesisDeps,
  view: T,
  thesis: ThesisRow | undefined,
  viewerId: number | null,
): T & ThesisFields {
  return addThesis(view, thesis, viewerId, ctx.config.thesisReportsToHide);
}

/** The thesis of an existing bet, or 404 (a bet without one, or no such bet). */
async function existingThesis(ctx: ThesisDeps, betId: number): Promise<ThesisRow> {
  const bet = await findBetById(ctx.db, betId);
  const thesis = bet ? await findThesis(ctx.db, betId) : undefined;
  if (!bet) throw notFound('Bet not found');
  if (!thesis) throw notFound('This bet has no thesis');
  return thesis;
}

/** POST /bet/{id}/thesis/hide: the owner only; the text is no longer served, the record's hash stays. Hiding again answers the same. */
export async function hideOwnThesis(ctx: ThesisDeps, userId: number, betId: number): Promise<{ message: string; thesis_state: ThesisState }> {
  const thesis = await existingThesis(ctx, betId);
  if (thesis.user_id !== userId) throw forbidden("Only the bet's owner can hide its thesis");
  await hideThesis(ctx.db, betId, ctx.clock.now());
  // The owner's public profile (a shared answer) shows it no more from now on.
  ctx.sharedAnswers.dropProfile(userId);
  return { message: 'Thesis hidden: its text is no longer shown; its hash stays in the record', thesis_state: 'hidden' };
}

/**
 * POST /bet/{id}/thesis/report: once per user, never by the owner. The
 * report is kept either way, but counts only when the reporter's account has
 * a verified email and a ranked bet at the time (src/domain/thesis.ts).
 */
export async function reportThesis(ctx: ThesisDeps, userId: number, betId: number): Promise<{ message: string }> {
  const thesis = await existingThesis(ctx, betId);
  if (thesis.user_id === userId) throw badRequest('You cannot report your own thesis; hide it instead');
  const counted = reportCounts(await reporterStanding(ctx.db, userId));
  const added = await ctx.database.transaction((trx) => addReport(trx, betId, userId, counted, ctx.clock.now()));
  if (!added) throw conflict('You have already reported this thesis');
  if (counted) ctx.sharedAnswers.dropProfile(thesis.user_id);
  return { message: 'Thank you: the thesis is reported' };
}
