// Email over SMTP through nodemailer (SMTP_URL). A 4xx reply or a connection
// failure is worth trying again later (the outbox backs off); a 5xx reply is
// a refusal that will not change.
import type { Transporter } from 'nodemailer';
import type { SendOutcome } from '../chat/types.js';
import type { MailSender, OutgoingMail } from './types.js';

export class SmtpMailSender implements MailSender {
  readonly name = 'smtp' as const;
  /** Made on the first send: nodemailer is loaded then, not at every start (most deployments send no mail at once). */
  private transporter: Promise<Transporter> | null = null;
  private closed = false;

  /** smtpUrl was checked when the configuration was read (src/config.ts). */
  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}

  private connect(): Promise<Transporter> {
    // Time-outs well under the outbox's lease (1 minute), so a send ends before its claim does.
    const url = new URL(this.smtpUrl);
    this.transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: url.hostname,
        port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
        secure: url.protocol === 'smtps:',
        auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    );
    return this.transporter;
  }

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    try {
      const transporter = await this.connect();
      if (this.closed) return { ok: false, reason: 'retry', error: 'the mail sender is closed' };
      await transporter.sendMail({
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
    this.closed = true;
    void this.transporter?.then((t) => t.close());
  }
}
