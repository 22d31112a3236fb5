// What the email delivery needs from a mail service.
import type { SendOutcome } from '../chat/types.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** List-Unsubscribe and List-Unsubscribe-Post (RFC 8058), on every message. */
  headers: Record<string, string>;
}

export interface MailSender {
  /** 'smtp' (nodemailer) or 'log' (the embedded default). */
  readonly name: 'smtp' | 'log';
  send(mail: OutgoingMail): Promise<SendOutcome>;
  close(): void;
}
