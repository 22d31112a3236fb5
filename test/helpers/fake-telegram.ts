// A local stand-in for the Telegram Bot API: records every call and answers
// with scripted failures when a test asks for them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotCall {
  method: string;
  payload: Record<string, unknown>;
}

interface Scripted {
  status: number;
  body: Record<string, unknown>;
}

export class FakeTelegram {
  readonly calls: BotCall[] = [];
  private readonly script = new Map<string, Scripted[]>();
  private updates: Array<Record<string, unknown>> = [];
  private server: http.Server | null = null;
  /** Delay before each answer (races between workers). */
  delayMs = 0;
  url = '';

  constructor(readonly token = '4242:TEST-TOKEN') {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => void this.answer(req, raw, res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The next call(s) of `method` fail with this Bot API error. */
  failNext(method: string, errorCode: number, description: string, parameters?: Record<string, unknown>, times = 1): void {
    const list = this.script.get(method) ?? [];
    for (let i = 0; i < times; i++) {
      list.push({ status: errorCode, body: { ok: false, error_code: errorCode, description, ...(parameters ? { parameters } : {}) } });
    }
    this.script.set(method, list);
  }

  /** Handed out by the next getUpdates (long polling). */
  queueUpdate(update: Record<string, unknown>): void {
    this.updates.push(update);
  }

  sent(chatId?: string | number): BotCall[] {
    return this.calls.filter((c) => c.method === 'sendMessage' && (chatId === undefined || String(c.payload.chat_id) === String(chatId)));
  }

  clear(): void {
    this.calls.length = 0;
  }

  private async answer(req: http.IncomingMessage, raw: string, res: http.ServerResponse): Promise<void> {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!m || m[1] !== this.token) return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
    const method = m[2]!;
    const payload = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    this.calls.push({ method, payload });
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const scripted = this.script.get(method)?.shift();
    if (scripted) return reply(scripted.status, scripted.body);
    if (method === 'sendMessage') {
      return reply(200, {
        ok: true,
        result: { message_id: this.calls.length, date: 0, chat: { id: Number(payload.chat_id), type: 'private' }, text: payload.text },
      });
    }
    if (method === 'getMe') {
      return reply(200, {
        ok: true,
        result: {
          id: 4242,
          is_bot: true,
          first_name: 'Paper',
          username: 'paper_bot',
          can_join_groups: false,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        },
      });
    }
    if (method === 'getUpdates') {
      const offset = Number(payload.offset ?? 0);
      const ready = this.updates.filter((u) => Number(u.update_id) >= offset);
      // An empty long poll is held briefly, as Telegram holds it up to its timeout.
      if (ready.length === 0) await new Promise((r) => setTimeout(r, 20));
      return reply(200, { ok: true, result: ready });
    }
    return reply(200, { ok: true, result: true });
  }
}
