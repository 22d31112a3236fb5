import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { LogMailSender } from './log.js';
import { SmtpMailSender } from './smtp.js';
import type { MailSender } from './types.js';

/** SMTP when SMTP_URL is set, otherwise the log transport (with the local mailbox outside production). */
export function createMailSender(config: Config, log: FastifyBaseLogger): MailSender {
  if (config.mail.smtpUrl) return new SmtpMailSender(config.mail.smtpUrl, config.mail.from);
  return new LogMailSender(log, config.mailbox === null ? null : { file: config.mailbox, from: config.mail.from });
}
