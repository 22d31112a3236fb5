// The embedded default (no SMTP_URL): a message is written to the service's
// log, with its links, and nowhere else: never into the app's notices, since
// whoever can read someone's notices must not be able to use their tokens.
import type { FastifyBaseLogger } from 'fastify';
import type { SendOutcome } from '../chat/types.js';
import type { MailSender, OutgoingMail } from './types.js';

export class LogMailSender implements MailSender {
  readonly name = 'log' as const;
  constructor(private readonly log: FastifyBaseLogger) {}

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    this.log.info({ mail: { to: mail.to, subject: mail.subject, text: mail.text } }, 'email (log transport)');
    return { ok: true };
  }

  close(): void {}
}
