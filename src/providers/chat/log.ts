// The embedded default: no messaging service at all. Delivering a notice
// writes it to the log; the app lists notices from their source (bets and
// stored notices, src/repositories/user-notices.ts), never from deliveries.
import type { FastifyBaseLogger } from 'fastify';
import type { ChatTransport, OutgoingNotice, SendOutcome } from './types.js';

export class LogTransport implements ChatTransport {
  readonly name = 'log' as const;
  constructor(private readonly log: FastifyBaseLogger) {}

  async send(notice: OutgoingNotice): Promise<SendOutcome> {
    this.log.info({ chatId: notice.chatId, kind: notice.kind, betId: notice.betId, text: notice.text }, 'notice delivered (log transport)');
    return { ok: true };
  }
}
