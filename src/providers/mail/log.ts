// The embedded default (no SMTP_URL): nothing is delivered. The log says which
// mail went to whom and nothing more, since a verification, reset or
// unsubscribe link is a live credential and logs are read by more people, and
// kept longer, than mail. Outside production each message is kept in full in
// a local mailbox (config.mailbox), where a developer follows its links; in
// production it is kept nowhere. Never in the app's notices either: whoever
// can read someone's notices must not be able to use their tokens.
import type { FastifyBaseLogger } from 'fastify';
import type { SendOutcome } from '../chat/types.js';
import { appendToMailbox, mboxEntry } from './mailbox.js';
import type { MailSender, OutgoingMail } from './types.js';

export class LogMailSender implements MailSender {
  readonly name = 'log' as const;
  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly mailbox: { file: string; from: string } | null,
  ) {}

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    const said = { mail: { to: mail.to, subject: mail.subject } };
    if (this.mailbox === null) {
      this.log.info(said, 'email not delivered (log transport, MAIL_TRANSPORT=log)');
      return { ok: true };
    }
    try {
      await appendToMailbox(this.mailbox.file, mboxEntry(mail, this.mailbox.from, new Date()));
    } catch (err) {
      return { ok: false, reason: 'retry', error: `mailbox ${this.mailbox.file}: ${err instanceof Error ? err.message : String(err)}` };
    }
    this.log.info(said, `email (log transport): the message is in ${this.mailbox.file}`);
    return { ok: true };
  }

  close(): void {}
}
