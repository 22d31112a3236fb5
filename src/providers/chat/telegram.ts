// The Telegram Bot API through grammY. Sending is used by the outbox worker;
// updates arrive either at POST /chat/webhook (with a webhook secret) or by
// long polling (without one, so a real bot works from a laptop).
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type { Api, Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Config } from '../../config.js';
import { escapeTelegramHtml } from '../../domain/notifications.js';
import type { ChatTransport, OutgoingNotice, SendOutcome } from './types.js';

export type UpdateHandler = (update: Update) => Promise<void>;

/** grammY, loaded when a bot is configured: loading it costs start time that a service without Telegram does not need. */
let loaded: typeof import('grammy') | null = null;
const grammy = (): typeof import('grammy') => {
  loaded ??= createRequire(import.meta.url)('grammy') as typeof import('grammy');
  return loaded;
};

/** The update kinds the service acts on. */
export const ALLOWED_UPDATES = ['message', 'callback_query', 'my_chat_member'] as const;
const SEND_TIMEOUT_SECONDS = 15;

export class TelegramTransport implements ChatTransport {
  readonly name = 'telegram' as const;
  readonly api: Api;
  private bot: Bot | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly config: Config['telegram'] & { botToken: string },
    private readonly publicUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.api = new (grammy().Api)(config.botToken, this.clientOptions());
  }

  private clientOptions() {
    return { timeoutSeconds: SEND_TIMEOUT_SECONDS, ...(this.config.apiUrl ? { apiRoot: this.config.apiUrl.replace(/\/$/, '') } : {}) };
  }

  async send(notice: OutgoingNotice): Promise<SendOutcome> {
    try {
      await this.api.sendMessage(notice.chatId, escapeTelegramHtml(notice.text), {
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
        ...(notice.kind === 'bet_opened' && notice.betId !== null
          ? {
              reply_markup: {
                inline_keyboard: [
                  [
                    { text: 'Tail', callback_data: `tail:${notice.betId}` },
                    { text: 'Fade', callback_data: `fade:${notice.betId}` },
                  ],
                ],
              },
            }
          : {}),
      });
      return { ok: true };
    } catch (err) {
      return classify(err);
    }
  }

  async answerCallback(callbackQueryId: string, text: string): Promise<void> {
    await this.api.answerCallbackQuery(callbackQueryId, { text });
  }

  /**
   * Starts receiving updates. With a webhook secret, updates come to
   * POST /chat/webhook; the webhook is registered here when the public URL is
   * https (Telegram accepts nothing else). Without a secret, long polling.
   */
  async startReceiving(onUpdate: UpdateHandler): Promise<void> {
    const { webhookSecret } = this.config;
    if (webhookSecret) {
      if (this.publicUrl.startsWith('https:')) {
        await this.api.setWebhook(`${this.publicUrl}/chat/webhook`, {
          secret_token: webhookSecret,
          allowed_updates: [...ALLOWED_UPDATES],
        });
        this.log.info('Telegram webhook registered');
      } else {
        this.log.warn('TELEGRAM_WEBHOOK_SECRET is set but PUBLIC_URL is not https: register the webhook yourself');
      }
      return;
    }
    const bot = new (grammy().Bot)(this.config.botToken, { client: this.clientOptions() });
    bot.use(async (c) => onUpdate(c.update));
    bot.catch((e) => this.log.error({ err: e.error }, 'Telegram update failed'));
    this.bot = bot;
    this.polling = bot
      .start({ allowed_updates: [...ALLOWED_UPDATES], onStart: () => this.log.info('Telegram long polling started') })
      .catch((err) => this.log.error({ err }, 'Telegram long polling stopped'));
  }

  async stopReceiving(): Promise<void> {
    if (!this.bot) return;
    if (this.bot.isRunning()) await this.bot.stop();
    await this.polling;
    this.bot = null;
  }
}

function classify(err: unknown): SendOutcome {
  const { GrammyError, HttpError } = grammy();
  if (err instanceof GrammyError) {
    const error = `${err.error_code}: ${err.description}`;
    if (err.error_code === 429) {
      const seconds = err.parameters.retry_after ?? 1;
      return { ok: false, reason: 'retry', error, retryAfterMs: seconds * 1000 };
    }
    if (err.error_code === 403) return { ok: false, reason: 'blocked', error };
    if (err.error_code >= 400 && err.error_code < 500) return { ok: false, reason: 'permanent', error };
    return { ok: false, reason: 'retry', error };
  }
  if (err instanceof HttpError) return { ok: false, reason: 'retry', error: `network: ${err.message}` };
  return { ok: false, reason: 'retry', error: err instanceof Error ? err.message : String(err) };
}
