// Email over SMTP through nodemailer (SMTP_URL). A 4xx reply or a connection
// failure is worth trying again later (the outbox backs off); a 5xx reply is
// a refusal that will not change.
import nodemailer, { type Transporter } from 'nodemailer';
import type { SendOutcome } from '../chat/types.js';
import type { MailSender, OutgoingMail } from './types.js';

export class SmtpMailSender implements MailSender {
  readonly name = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Time-outs well under the outbox's lease (1 minute), so a send ends before its claim does.
    const url = new URL(smtpUrl);
    this.transporter = nodemailer.createTransport({
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    try {
      await this.transporter.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: mail.headers,
      });
      return { ok: true };
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      const error = err instanceof Error ? err.message : String(err);
      if (typeof code === 'number' && code >= 500 && code < 600) return { ok: false, reason: 'permanent', error };
      return { ok: false, reason: 'retry', error };
    }
  }

  close(): void {
    this.transporter.close();
  }
}
