import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { LogTransport } from './log.js';
import { TelegramTransport } from './telegram.js';
import type { ChatTransport } from './types.js';

/** Telegram when a bot token is configured, otherwise the embedded log transport. */
export function createChatTransport(config: Config, log: FastifyBaseLogger): ChatTransport {
  const { botToken } = config.telegram;
  if (botToken) return new TelegramTransport({ ...config.telegram, botToken }, config.publicUrl, log);
  return new LogTransport(log);
}
