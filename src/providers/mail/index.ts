import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { LogMailSender } from './log.js';
import { SmtpMailSender } from './smtp.js';
import type { MailSender } from './types.js';

/** SMTP when SMTP_URL is set, otherwise the log transport. */
export function createMailSender(config: Config, log: FastifyBaseLogger): MailSender {
  return config.mail.smtpUrl ? new SmtpMailSender(config.mail.smtpUrl, config.mail.from) : new LogMailSender(log);
}
