// Email on the account: verification, password reset, change of address,
// notice settings, unsubscribe and the daily digest. Every mail is a row of
// the outbox written in the transaction of what causes it (or by the request
// alone, for a reset asked by address); the links are minted when it is sent
// (src/services/mail-delivery.ts).
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { normalizeEmail, passwordProblem } from '../domain/accounts.js';
import { DEFAULT_NOTICE_SETTINGS, isTimeZone, nextDigestAt } from '../domain/mail.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { emailTaken, findEmailState, findPendingChange, markVerified, useEmailToken } from '../repositories/email.js';
import {
  advanceDigest,
  dueDigests,
  emailNoticeAddress,
  findNoticeSettings,
  saveNoticeSettings,
  turnEmailNoticesOff,
} from '../repositories/notice-settings.js';
import { enqueueMail } from '../repositories/notifications.js';
import { deleteAllSessionsOf } from '../repositories/password-reset.js';
import { addUserNotice, countFollowedBetEvents, listFollowedBetEvents } from '../repositories/user-notices.js';
import { findUserById, updatePasswordHash } from '../repositories/users.js';
import type { EmailResult, EmailState, NoticeSettings } from '../schemas/email.js';
import type { Principal } from './accounts.js';
import { type AccountControlDeps, confirmPassword } from './account-control.js';
import { passwordChanged, queueVerification } from './email-queue.js';
import type { DigestText } from './mail-delivery.js';
import { hashToken, userOfUnsubscribeToken } from './mail-tokens.js';
import { toNotification } from './notifications.js';

/** The part of the context this module uses. */
export type EmailDeps = Pick<AppContext, 'clock' | 'config' | 'database' | 'db' | 'mail' | 'passwords' | 'sessions'> & AccountControlDeps;

const BAD_LINK = 'This link is unknown, already used or expired';

export async function emailState(ctx: EmailDeps, userId: number): Promise<EmailState> {
  const state = await findEmailState(ctx.db, userId);
  if (!state) throw notFound('User not found');
  return { email: state.email, email_verified: state.verified, pending_email: await findPendingChange(ctx.db, userId, ctx.clock.now()) };
}

export async function resendVerification(ctx: EmailDeps, userId: number): Promise<void> {
  const state = await findEmailState(ctx.db, userId);
  if (!state) throw notFound('User not found');
  if (state.verified) throw conflict('This address is already verified');
  await queueVerification(ctx.db, userId, state.email, ctx.clock.now());
}

export async function verifyEmail(ctx: EmailDeps, token: string): Promise<EmailResult> {
  return ctx.database.transaction(async (trx) => {
    const now = ctx.clock.now();
    const used = await useEmailToken(trx, hashToken(token), 'verify', now);
    if (!used) throw badRequest(BAD_LINK);
    const state = await findEmailState(trx, used.user_id);
    // The account has moved to another address since: this link proves nothing about it.
    if (!state || state.email !== used.email) throw badRequest(BAD_LINK);
    await markVerified(trx, used.user_id, used.email, now);
    return { message: 'Your email address is verified', email: used.email };
  });
}

/** Addresses no account may take: the reserved .invalid names (deleted accounts hold such addresses). */
function reservedAddress(email: string): boolean {
  return /\.invalid$/i.test(email) || email.startsWith('deleted:');
}

export async function requestEmailChange(ctx: EmailDeps, who: Principal, ip: string, newEmail: string, password: string): Promise<void> {
  const user = await confirmPassword(ctx, who, ip, password);
  const to = normalizeEmail(newEmail);
  if (to === user.email) throw badRequest('That is already your address');
  if (reservedAddress(to)) throw badRequest('That address cannot be used');
  if (await emailTaken(ctx.db, to)) throw conflict('Email already registered');
  await ctx.database.transaction(async (trx) => {
    const now = ctx.clock.now();
    await enqueueMail(trx, { userId: user.id, to, kind: 'email_change', text: 'change' }, now);
    // The old address is told, with the new one masked.
    await enqueueMail(trx, { userId: user.id, to: user.email, kind: 'address_changing', text: to }, now);
  });
}

export async function confirmEmailChange(ctx: EmailDeps, token: string): Promise<EmailResult> {
  try {
    return await ctx.database.transaction(async (trx) => {
      const now = ctx.clock.now();
      const used = await useEmailToken(trx, hashToken(token), 'change', now);
      if (!used) throw badRequest(BAD_LINK);
      const user = await findUserById(trx, used.user_id);
      if (!user) throw badRequest(BAD_LINK);
      await trx.updateTable('users').set({ email: used.email }).where('id', '=', user.id).execute();
      // Confirming through the link proves the new address.
      await markVerified(trx, user.id, used.email, now);
      await addUserNotice(
        trx,
        { userId: user.id, kind: 'account_email_changed', text: 'The email address of your account was changed.', link: 'settings' },
        now,
      );
      return { message: 'Your email address is changed', email: used.email };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Email already registered');
    throw err;
  }
}

/**
 * Queues a reset mail for an address, whether or not it has an account: the
 * request does the same one insert either way (so it answers alike and in
 * the same time); the worker sends only to an address with an account.
 */
export async function forgotPassword(ctx: EmailDeps, email: string): Promise<void> {
  await enqueueMail(ctx.db, { userId: null, to: normalizeEmail(email), kind: 'password_reset', text: 'reset' }, ctx.clock.now());
}

export async function resetPassword(ctx: EmailDeps, ip: string, token: string, newPassword: string): Promise<void> {
  const problem = passwordProblem(newPassword, ctx.config.commonPasswords);
  if (problem) throw badRequest(problem);
  const hash = hashToken(token);
  // A token that cannot work costs no password hash.
  const candidate = await ctx.db
    .selectFrom('email_tokens')
    .select('user_id')
    .where('token_hash', '=', hash)
    .where('purpose', '=', 'reset')
    .where('used_at', 'is', null)
    .where('expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
  if (!candidate) throw badRequest(BAD_LINK);
  const passwordHash = await ctx.passwords.hash(newPassword, { ip });
  const userId = await ctx.database.transaction(async (trx) => {
    const now = ctx.clock.now();
    const used = await useEmailToken(trx, hash, 'reset', now);
    if (!used) throw badRequest(BAD_LINK);
    const user = await findUserById(trx, used.user_id);
    if (!user || user.email !== used.email) throw badRequest(BAD_LINK);
    await updatePasswordHash(trx, user.id, passwordHash);
    await deleteAllSessionsOf(trx, user.id);
    await passwordChanged(trx, user.id, user.email, now);
    return user.id;
  });
  // Every instance drops the account's sessions, as logout and a password change do.
  await ctx.sessions.revoke({ userId });
}

export async function getNoticeSettings(ctx: EmailDeps, userId: number): Promise<NoticeSettings> {
  const row = await findNoticeSettings(ctx.db, userId);
  return row ? { email_notices: row.email_notices, digest_hour: row.digest_hour, time_zone: row.time_zone } : { ...DEFAULT_NOTICE_SETTINGS };
}

export async function putNoticeSettings(ctx: EmailDeps, userId: number, s: NoticeSettings): Promise<NoticeSettings> {
  if (!isTimeZone(s.time_zone)) throw badRequest('time_zone must be an IANA time zone, such as Europe/Paris or UTC');
  const state = await findEmailState(ctx.db, userId);
  if (!state) throw notFound('User not found');
  if (s.email_notices !== 'off' && !state.verified) throw conflict('Verify your email address first');
  const now = ctx.clock.now();
  const before = await findNoticeSettings(ctx.db, userId);
  const digest = s.email_notices === 'digest';
  await saveNoticeSettings(ctx.db, {
    user_id: userId,
    ...s,
    next_digest_at: digest ? nextDigestAt(now, s.digest_hour, s.time_zone) : null,
    // A digest covers what happened since digests began (or since the last one).
    digest_since: digest ? (before?.email_notices === 'digest' && before.digest_since !== null ? before.digest_since : now) : null,
    updated_at: now,
  });
  return s;
}

export async function unsubscribe(ctx: EmailDeps, token: string): Promise<void> {
  const userId = userOfUnsubscribeToken(ctx.mail.key, token);
  if (userId === null) throw badRequest('This unsubscribe link is not valid');
  await turnEmailNoticesOff(ctx.db, userId, ctx.clock.now());
}

/** Whether an unsubscribe token is genuine (the confirmation page says so before the click). */
export function unsubscribeTokenIsValid(ctx: EmailDeps, token: string): boolean {
  return userOfUnsubscribeToken(ctx.mail.key, token) !== null;
}

const DIGEST_LINES = 50;

/**
 * Queues the digests now due: for each, the followed traders' bet events
 * since the last one. Each row is moved on to its next instant in the same
 * transaction as its mail is queued, by a conditional update, so two
 * instances never send one digest twice.
 */
export async function queueDueDigests(ctx: EmailDeps, limit = 50): Promise<number> {
  const now = ctx.clock.now();
  let queued = 0;
  for (const due of await dueDigests(ctx.db, now, limit)) {
    const dueAt = Number(due.next_digest_at);
    const userId = Number(due.user_id);
    await ctx.database.transaction(async (trx) => {
      const next = nextDigestAt(Math.max(now, dueAt), due.digest_hour, due.time_zone);
      if (!(await advanceDigest(trx, userId, dueAt, next))) return;
      const since = due.digest_since === null ? dueAt - 86_400_000 : Number(due.digest_since);
      const to = await emailNoticeAddress(trx, userId, 'digest');
      if (!to) return;
      const events = await listFollowedBetEvents(trx, userId, since, dueAt, DIGEST_LINES);
      if (events.length === 0) return;
      const total = await countFollowedBetEvents(trx, userId, since, dueAt);
      const text: DigestText = { lines: events.map((e) => toNotification(e, null).text), more: total - events.length };
      await enqueueMail(trx, { userId, to, kind: 'email_digest', text: JSON.stringify(text) }, now);
      queued += 1;
    });
  }
  return queued;
}
