// Email as a channel of the outbox (transport 'email', the address in the
// email column): the outbox claims, retries and leases rows as for chats, and
// this turns a row into a message when it is sent. A link that carries a token is
// minted here, at send time, so no token ever sits in the database in the
// clear (only its hash), and a resend after a failure carries a fresh one.
import type { Db } from '../db/database.js';
import type { NotificationRow } from '../db/tables.js';
import { CHANGE_TTL_MS, MAIL, type MailContent, maskAddress, RESET_TTL_MS, renderMail, VERIFY_TTL_MS } from '../domain/mail.js';
import type { Clock } from '../lib/clock.js';
import type { OutboxChannel } from '../jobs/outbox-channel.js';
import type { SendOutcome } from '../providers/chat/types.js';
import type { MailSender } from '../providers/mail/types.js';
import { dropOpenTokens, findEmailState, insertEmailToken, type TokenPurpose } from '../repositories/email.js';
import { emailNoticeAddress } from '../repositories/notice-settings.js';
import { findUserByEmail } from '../repositories/users.js';
import { newOneTimeToken, unsubscribeToken } from './mail-tokens.js';

export interface MailDeliveryOptions {
  db: Db;
  clock: Clock;
  sender: MailSender;
  key: Buffer;
  publicUrl: string;
  webUrl: string;
}

/** What a digest row's text holds: the lines it lists and how many more there were. */
export interface DigestText {
  lines: string[];
  more: number;
}

export class MailChannel implements OutboxChannel {
  readonly name = 'email' as const;

  constructor(private readonly o: MailDeliveryOptions) {}

  unsubscribeUrl(userId: number): string {
    return `${this.o.publicUrl}/email/unsubscribe?token=${unsubscribeToken(this.o.key, userId)}`;
  }

  /** Whether a claimed mail is still to be sent: the address is still the one it was for, the choice still made. */
  async stillWanted(row: NotificationRow): Promise<boolean> {
    const { db } = this.o;
    const userId = row.user_id === null ? null : Number(row.user_id);
    const to = row.email ?? '';
    switch (row.kind) {
      case 'bet_opened':
      case 'bet_cancelled':
      case 'price_alert':
      case 'bet_exit':
        return userId !== null && (await emailNoticeAddress(db, userId, 'each')) === to;
      case 'email_digest':
        return userId !== null && (await emailNoticeAddress(db, userId, 'digest')) === to;
      case 'email_verify': {
        const state = userId === null ? undefined : await findEmailState(db, userId);
        return state !== undefined && state.email === to && !state.verified;
      }
      case 'password_reset':
        // Asked for by address: an address without an account gets nothing, and nobody learns it.
        return (await findUserByEmail(db, to)) !== undefined;
      case 'email_change': {
        const state = userId === null ? undefined : await findEmailState(db, userId);
        return state !== undefined && state.email !== to;
      }
      default:
        return userId !== null && (await findEmailState(db, userId)) !== undefined;
    }
  }

  async send(row: NotificationRow): Promise<SendOutcome> {
    const to = row.email ?? '';
    const userId = row.user_id ?? (row.kind === 'password_reset' ? ((await findUserByEmail(this.o.db, to))?.id ?? null) : null);
    if (userId === null) return { ok: false, reason: 'permanent', error: 'no account for this mail' };
    const content = await this.content(row, Number(userId), to);
    const unsubscribe = this.unsubscribeUrl(Number(userId));
    const mail = renderMail(content, unsubscribe);
    return this.o.sender.send({
      to,
      ...mail,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }

  private async mint(userId: number, purpose: TokenPurpose, email: string, ttlMs: number): Promise<string> {
    const { token, hash } = newOneTimeToken();
    // A new link replaces the earlier unused ones of the same purpose.
    await dropOpenTokens(this.o.db, userId, purpose);
    await insertEmailToken(this.o.db, { hash, userId, purpose, email, now: this.o.clock.now(), ttlMs });
    return token;
  }

  private async content(notice: NotificationRow, userId: number, to: string): Promise<MailContent> {
    const web = this.o.webUrl;
    const link = (page: string, token: string) => `${web}${page}?token=${encodeURIComponent(token)}`;
    switch (notice.kind) {
      case 'email_verify':
        return MAIL.verify(link('verify-email', await this.mint(userId, 'verify', to, VERIFY_TTL_MS)));
      case 'password_reset':
        return MAIL.reset(link('reset-password', await this.mint(userId, 'reset', to, RESET_TTL_MS)));
      case 'email_change':
        return MAIL.change(link('confirm-email', await this.mint(userId, 'change', to, CHANGE_TTL_MS)));
      case 'address_changing':
        return MAIL.addressChanging(maskAddress(notice.text), web);
      case 'password_changed':
        return MAIL.passwordChanged(web);
      case 'email_digest': {
        const d = JSON.parse(notice.text) as DigestText;
        return MAIL.digest(d.lines, d.more, web);
      }
      case 'price_alert': {
        const [sentence = notice.text, url = `${web}alerts`] = notice.text.split('\n');
        return MAIL.alertNotice(sentence, url);
      }
      default: {
        // A followed trader's bet: the chat text is the sentence, then the bet's address.
        const [sentence = notice.text, url = `${web}notifications`] = notice.text.split('\n');
        return MAIL.betNotice(sentence, url);
      }
    }
  }
}
