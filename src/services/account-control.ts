// The user's control over their account: change password, delete the
// account, export their whole history.
import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { BetRow } from '../db/tables.js';
import { passwordProblem } from '../domain/accounts.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { anonymiseUser, deleteOtherSessions } from '../repositories/account-control.js';
import { betsPageAfter } from '../repositories/export.js';
import { type ThesisRow, thesesOf } from '../repositories/theses.js';
import { findUserById, updatePasswordHash } from '../repositories/users.js';
import { type ExportedBet, ExportedBetSchema } from '../schemas/me.js';
import { checkPassword, type Principal } from './accounts.js';
import { passwordChanged } from './email-queue.js';

/** What the account's control (password, deletion, export) uses of the context. */
export type AccountControlDeps = Pick<
  AppContext,
  'config' | 'database' | 'db' | 'clock' | 'events' | 'passwords' | 'sessions' | 'loginThrottle' | 'passwordBudget'
>;

/** The caller's row once their password is confirmed: throttled as a login, within the account's hourly budget (services/accounts.ts). */
export async function confirmPassword(ctx: AccountControlDeps, who: Principal, ip: string, password: string) {
  const user = await findUserById(ctx.db, who.userId);
  if (!user) throw notFound('User not found');
  // Keyed by the account's email, as /login is: guesses here and there add up.
  if (!(await checkPassword(ctx, { ip, account: user.email, login: false }, password, async () => user))) throw forbidden('Password is incorrect');
  return user;
}

/** Needs the current password; every other session is revoked, this one stays. */
export async function changePassword(ctx: AccountControlDeps, who: Principal, ip: string, current: string, next: string): Promise<void> {
  const problem = passwordProblem(next, ctx.config.commonPasswords);
  if (problem) throw badRequest(problem);
  const user = await confirmPassword(ctx, who, ip, current);
  const hash = await ctx.passwords.hash(next, { ip, account: user.email });
  await ctx.database.transaction(async (trx) => {
    await updatePasswordHash(trx, who.userId, hash);
    await deleteOtherSessions(trx, who.userId, who.sessionId);
    await passwordChanged(trx, who.userId, user.email, ctx.clock.now());
  });
  await ctx.sessions.revoke({ userId: who.userId, exceptSessionId: who.sessionId });
}

export async function deleteAccount(ctx: AccountControlDeps, who: Principal, ip: string, password: string): Promise<void> {
  await confirmPassword(ctx, who, ip, password);
  await ctx.database.transaction(async (trx) => {
    await anonymiseUser(trx, who.userId, ctx.clock.now());
    await ctx.events.emit(trx, 'accountDeleted', { userId: who.userId });
  });
  await ctx.sessions.revoke({ userId: who.userId });
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `thesis`: the owner's own words (hidden ones are served to no one, the owner included). */
export function toExportedBet(b: BetRow, thesis: ThesisRow | undefined): ExportedBet {
  return {
    id: b.id,
    ticker: b.ticker,
    direction: b.direction,
    status: b.status,
    entry_price: b.entry_price,
    exit_price: b.exit_price,
    percentage_gain: b.percentage_gain,
    target_date: b.target_date,
    entry_date: new Date(b.opened_at).toISOString(),
    exit_date: iso(b.closed_at),
    thesis: thesis && thesis.hidden_at === null ? thesis.text : null,
  };
}

/** The CSV's columns: the exported shape's fields, in its order (the JSON form's). */
const COLUMNS = Object.keys(ExportedBetSchema.properties) as Array<keyof ExportedBet>;

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  // Quote what CSV needs quoted, and defuse spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(s) && typeof v === 'string' ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const EXPORT_PAGE = 1000;

/**
 * The caller's whole history, streamed in keyset-paged chunks so a long
 * history never sits in memory at once; each chunk is its own short query, so
 * other requests are served between chunks even on SQLite's one connection.
 */
export function exportBets(ctx: AccountControlDeps, userId: number, format: 'csv' | 'json'): Readable {
  async function* chunks() {
    let after = 0;
    let first = true;
    yield format === 'csv' ? `${COLUMNS.join(',')}\r\n` : '[';
    for (;;) {
      const page = await betsPageAfter(ctx.db, userId, after, EXPORT_PAGE);
      if (page.length === 0) break;
      after = page[page.length - 1].id;
      const theses = await thesesOf(
        ctx.db,
        page.map((b) => b.id),
      );
      const rows = page.map((b) => toExportedBet(b, theses.get(b.id)));
      if (format === 'csv') yield rows.map((r) => `${COLUMNS.map((c) => csvCell(r[c])).join(',')}\r\n`).join('');
      else {
        yield (first ? '' : ',') + rows.map((r) => JSON.stringify(r)).join(',');
        first = false;
      }
      if (page.length < EXPORT_PAGE) break;
    }
    if (format === 'json') yield ']';
  }
  return Readable.from(chunks());
}
