// The embedded default: no messaging service at all. The notices stay in the
// database (GET /notifications lists them); delivering one only logs it.
import type { FastifyBaseLogger } from 'fastify';
import type { ChatTransport, OutgoingNotice, SendOutcome } from './types.js';

export class LogTransport implements ChatTransport {
  readonly name = 'log' as const;
  constructor(private readonly log: FastifyBaseLogger) {}

  async send(notice: OutgoingNotice): Promise<SendOutcome> {
    this.log.info({ chatId: notice.chatId, kind: notice.kind, betId: notice.betId }, 'notice recorded (log transport)');
    return { ok: true };
  }
}
