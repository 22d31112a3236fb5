// A real SMTP server for tests (the smtp-server package on 127.0.0.1, a free
// port): it receives what nodemailer sends, parses each message (mailparser)
// and can refuse messages for a while, as a server in trouble does.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A header's raw value (as sent, unfolded). */
  header(name: string): string;
  /** The links of the plain-text part, in order. */
  links: string[];
}

export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** While positive, each message is refused with a temporary error (451) and this counts down. */
  refuseNext = 0;
  /** Messages refused so far. */
  refused = 0;
  private server: SMTPServer | null = null;
  private waiters: Array<() => void> = [];
  port = 0;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (_auth, _session, cb) => cb(null, { user: 'test' }),
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.refuseNext > 0) {
            this.refuseNext -= 1;
            this.refused += 1;
            const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
            cb(err);
            return;
          }
          void simpleParser(Buffer.concat(chunks)).then((m) => {
            const text = m.text ?? '';
            this.received.push({
              to: session.envelope.rcptTo.map((r) => r.address).join(','),
              subject: m.subject ?? '',
              text,
              html: typeof m.html === 'string' ? m.html : '',
              header: (name: string) =>
                (m.headerLines.find((h) => h.key === name.toLowerCase())?.line ?? '').replace(/^[^:]*:\s*/, '').replace(/\r?\n\s+/g, ' '),
              links: [...text.matchAll(/https?:\/\/\S+/g)].map((x) => x[0]),
            });
            for (const w of this.waiters.splice(0)) w();
            cb();
          }, cb);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `smtp://tester:secret@127.0.0.1:${this.port}`;
  }

  /** Messages to one address (without regard to case), oldest first. */
  to(address: string): ReceivedMail[] {
    // Addresses are stored lower-cased (DESIGN: emails compared lower-cased).
    return this.received.filter((m) => m.to.toLowerCase() === address.toLowerCase());
  }

  /** Waits until a message to this address matches (the server gets it from a background worker). */
  async waitFor(address: string, match: (m: ReceivedMail) => boolean = () => true, timeoutMs = 20_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(address).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching mail to ${address}; got: ${this.to(address)
            .map((m) => m.subject)
            .join(' | ')}`,
        );
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** The token of a link (?token=…). */
export function tokenOf(link: string): string {
  const t = new URL(link).searchParams.get('token');
  if (!t) throw new Error(`no token in ${link}`);
  return t;
}
