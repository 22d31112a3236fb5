// The bet notices a fake Telegram received, keyed by chat, kind and bet.
import { randomInt } from 'node:crypto';
import type { BotCall } from './fake-telegram.js';

export function newChatId(): number {
  return randomInt(1_000_000, 2 ** 40);
}

/** "chat:kind:bet" of a bet notice sent with sendMessage (null for other messages). */
export function noticeKey(call: BotCall): string | null {
  if (call.method !== 'sendMessage') return null;
  const text = String(call.payload.text);
  const bet = /\/bet\/(\d+)$/.exec(text)?.[1];
  if (!bet) return null;
  const kind = / opened /.test(text) ? 'opened' : / cancelled /.test(text) ? 'cancelled' : / was settled /.test(text) ? 'settled' : 'other';
  return `${call.payload.chat_id}:${kind}:${bet}`;
}

/** How many times each bet notice was sent. */
export function noticeCounts(calls: BotCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of calls) {
    const key = noticeKey(c);
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
