// Rules of email, as pure functions: token lifetimes, the digest's next
// instant in the user's time zone, and the messages (a plain-text and a
// simple HTML part, the service's name, the action's link and the
// unsubscribe link on every one).
import { DateTime, IANAZone } from 'luxon';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);

export const SERVICE_NAME = 'Paper Bets';

/** Lifetimes of the one-time links. */
export const VERIFY_TTL_MS = 24 * 3_600_000;
export const RESET_TTL_MS = 30 * 60_000;
export const CHANGE_TTL_MS = 24 * 3_600_000;

export type EmailNotices = 'off' | 'each' | 'digest';

export interface NoticeSettingsValue {
  email_notices: EmailNotices;
  digest_hour: number;
  time_zone: string;
}

export const DEFAULT_NOTICE_SETTINGS: NoticeSettingsValue = { email_notices: 'off', digest_hour: 8, time_zone: 'UTC' };

export function isTimeZone(tz: string): boolean {
  return tz.length <= 64 && IANAZone.isValidZone(tz);
}

/** The first instant after `now` when the clock in `timeZone` shows `hour`:00. */
export function nextDigestAt(now: number, hour: number, timeZone: string): number {
  const local = DateTime.fromMillis(now, { zone: timeZone });
  let at = local.set({ hour, minute: 0, second: 0, millisecond: 0 });
  if (at.toMillis() <= now) at = local.plus({ days: 1 }).set({ hour, minute: 0, second: 0, millisecond: 0 });
  return at.toMillis();
}

/** `user@example.com` → `u***@example.com`: enough to recognise, not to harvest. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

export interface MailContent {
  subject: string;
  /** Paragraphs of plain text. */
  paragraphs: string[];
  /** The one action of the message, if any. */
  action?: { label: string; url: string };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** Both parts of a message, with the footer every message carries. */
export function renderMail(content: MailContent, unsubscribeUrl: string): RenderedMail {
  const subject = `${content.subject} · ${SERVICE_NAME}`;
  const lines = [...content.paragraphs];
  if (content.action) lines.push(`${content.action.label}: ${content.action.url}`);
  const footer = `You get this email because of your ${SERVICE_NAME} account. Stop notices by email: ${unsubscribeUrl}`;
  const text = `${lines.join('\n\n')}\n\n-- \n${footer}\n`;
  const p = (s: string) => `<p>${escapeHtml(s).replace(/\n/g, '<br>')}</p>`;
  const html = [
    '<!doctype html><html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1d1d1f; max-width: 36rem">',
    `<p><strong>${escapeHtml(SERVICE_NAME)}</strong></p>`,
    ...content.paragraphs.map(p),
    content.action
      ? `<p><a href="${escapeHtml(content.action.url)}" style="display: inline-block; padding: .5rem 1rem; background: #2563eb; color: #fff; border-radius: .4rem; text-decoration: none">${escapeHtml(content.action.label)}</a></p><p style="font-size: .85em; color: #555">Or open ${escapeHtml(content.action.url)}</p>`
      : '',
    `<hr><p style="font-size: .85em; color: #555">You get this email because of your ${escapeHtml(SERVICE_NAME)} account. <a href="${escapeHtml(unsubscribeUrl)}">Stop notices by email</a>.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

export const MAIL = {
  verify: (url: string): MailContent => ({
    subject: 'Confirm your email address',
    paragraphs: ['Confirm that this address is yours. The link works once, for 24 hours.', 'If you did not create an account, ignore this email.'],
    action: { label: 'Confirm my address', url },
  }),
  reset: (url: string): MailContent => ({
    subject: 'Reset your password',
    paragraphs: [
      'Someone asked to reset the password of the account with this address. The link works once, for 30 minutes.',
      'If it was not you, ignore this email: your password stays as it is.',
    ],
    action: { label: 'Choose a new password', url },
  }),
  change: (url: string): MailContent => ({
    subject: 'Confirm your new email address',
    paragraphs: [
      'Confirm that the account should use this address from now on. The link works once, for 24 hours.',
      'If you did not ask for this, ignore this email.',
    ],
    action: { label: 'Use this address', url },
  }),
  addressChanging: (maskedNew: string, webUrl: string): MailContent => ({
    subject: 'Your email address is about to change',
    paragraphs: [
      `Someone signed in to your account asked to use ${maskedNew} instead of this address. It changes once the new address is confirmed.`,
      'If it was not you, change your password now.',
    ],
    action: { label: 'Open your settings', url: `${webUrl}settings` },
  }),
  passwordChanged: (webUrl: string): MailContent => ({
    subject: 'Your password was changed',
    paragraphs: ['The password of your account was changed and every session was signed out.', 'If it was not you, reset your password now.'],
    action: { label: 'Reset your password', url: `${webUrl}forgot-password` },
  }),
  /** A followed trader's bet: the chat text's sentence and the bet's address. */
  betNotice: (sentence: string, betUrl: string): MailContent => ({
    subject: sentence.replace(/\.$/, ''),
    paragraphs: [sentence],
    action: { label: 'See the bet', url: betUrl },
  }),
  alertNotice: (sentence: string, alertsUrl: string): MailContent => ({
    subject: sentence.replace(/\.$/, ''),
    paragraphs: [sentence],
    action: { label: 'See your alerts', url: alertsUrl },
  }),
  digest: (lines: string[], more: number, webUrl: string): MailContent => ({
    subject: `${lines.length + more} ${lines.length + more === 1 ? 'notice' : 'notices'} from traders you follow`,
    paragraphs: [lines.map((l) => `• ${l}`).join('\n') + (more > 0 ? `\n…and ${more} more.` : '')],
    action: { label: 'See your notices', url: `${webUrl}notifications` },
  }),
} as const;
