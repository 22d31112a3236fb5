// Rules of the notification outbox and the chat commands, as pure functions.
import type { Direction } from './bets.js';
import { formatPrice } from './price-format.js';

/** Mails that only the email channel carries (src/domain/mail.ts renders them). */
export type MailKind = 'email_verify' | 'password_reset' | 'email_change' | 'address_changing' | 'password_changed' | 'email_digest';
export type NotificationKind =
  | 'bet_opened'
  | 'bet_cancelled'
  | 'bet_settled'
  | 'bet_exit'
  | 'chat_reply'
  | 'league_notice'
  | 'price_alert'
  | MailKind;
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'dropped';
/** Where deliveries go: the Telegram Bot API, the embedded log transport, email (SMTP or its log transport), or Web Push. */
export type ChatTransportName = 'telegram' | 'log' | 'email' | 'push';

/** Delivery attempts before a notice is given up (and recorded as failed). */
export const MAX_ATTEMPTS = 6;
const BASE_DELAY_MS = 5_000;
const MAX_DELAY_MS = 30 * 60_000;

/** Wait before attempt number `attempts + 1`, after `attempts` failures: 5 s, 10 s, 20 s, … capped at 30 min. */
export function backoffMs(attempts: number): number {
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
}

export type ChatCommand = { kind: 'start'; code: string | null } | { kind: 'stop' } | { kind: 'code'; code: string } | { kind: 'other' };

const CODE = /^[A-Za-z0-9_-]{16,64}$/;

/** What a user typed in the chat: `/start CODE` (deep links send this), `/stop`, or a code pasted alone. */
export function parseChatText(text: string): ChatCommand {
  const t = text.trim();
  const m = /^\/(start|stop)(?:@\w+)?(?:\s+(\S+))?\s*$/i.exec(t);
  if (m) {
    if (m[1]!.toLowerCase() === 'stop') return { kind: 'stop' };
    return { kind: 'start', code: m[2] ?? null };
  }
  if (CODE.test(t)) return { kind: 'code', code: t };
  return { kind: 'other' };
}

export const LINK_CODE_TTL_MS = 10 * 60_000;

export function betUrl(webUrl: string, betId: number): string {
  return `${webUrl}bet/${betId}`;
}

export interface BetFacts {
  id: number;
  ticker: string;
  direction: Direction;
  entry_price: number;
}

/** The sentence the app shows for a followed trader's opening (the app links the bet itself: no URL). */
export function openedSummary(owner: string, bet: Omit<BetFacts, 'id'>): string {
  return `${owner} opened ${bet.direction} ${bet.ticker} at ${formatPrice(bet.entry_price)}.`;
}

export function cancelledSummary(owner: string, bet: Omit<BetFacts, 'id'>): string {
  return `${owner} cancelled the ${bet.direction} ${bet.ticker} bet opened at ${formatPrice(bet.entry_price)}.`;
}

/** A chat message carries the bet's address after the sentence. */
export function openedText(owner: string, bet: BetFacts, webUrl: string): string {
  return `${openedSummary(owner, bet)}\n${betUrl(webUrl, bet.id)}`;
}

export function cancelledText(owner: string, bet: BetFacts, webUrl: string): string {
  return `${cancelledSummary(owner, bet)}\n${betUrl(webUrl, bet.id)}`;
}

export function settledSummary(bet: Omit<BetFacts, 'id'> & { exit_price: number | null; percentage_gain: number | null }): string {
  const gain = bet.percentage_gain ?? 0;
  const signed = `${gain >= 0 ? '+' : ''}${gain.toFixed(2)}%`;
  return `Your ${bet.direction} ${bet.ticker} bet was settled at ${formatPrice(bet.exit_price ?? bet.entry_price)} (entry ${formatPrice(bet.entry_price)}): ${signed}.`;
}

export function settledText(bet: BetFacts & { exit_price: number | null; percentage_gain: number | null }, webUrl: string): string {
  return `${settledSummary(bet)}\n${betUrl(webUrl, bet.id)}`;
}

/** Telegram's HTML parse mode needs exactly these three escaped. */
export function escapeTelegramHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const REPLIES = {
  linked: (username: string) => `Linked to ${username}. You will get notices here when people you follow open or cancel bets. Send /stop to unlink.`,
  badCode: 'Sorry, that code is unknown, already used or expired. Create a new one in the app and try again.',
  noCode: 'Hello! To link this chat, open the link shown in the app (or send the code it gives you).',
  stopped: 'Unlinked: this chat will get no more notices. Link again from the app at any time.',
  notLinked: 'This chat is not linked to an account.',
  help: 'Send the code from the app to link this chat, or /stop to unlink it.',
} as const;

const EXIT_NAMES: Record<string, string> = { stop_loss: 'stop-loss', take_profit: 'take-profit' };

/**
 * The owner's notice of a close by an exit rule (docs/exits.md): the price is
 * the first published quote at or beyond the level, dated, which after a gap,
 * or after the service was down, is beyond the level.
 */
export function exitSummary(
  bet: Omit<BetFacts, 'id'> & { exit_price: number | null; percentage_gain: number | null; close_reason: string | null; closed_at: number | null },
): string {
  const gain = bet.percentage_gain ?? 0;
  const signed = `${gain >= 0 ? '+' : ''}${gain.toFixed(2)}%`;
  const when =
    bet.closed_at === null
      ? ''
      : ` of ${new Date(bet.closed_at)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC')}`;
  return (
    `Your ${bet.direction} ${bet.ticker} bet was closed by its ${EXIT_NAMES[bet.close_reason ?? ''] ?? 'exit rule'} at ` +
    `${formatPrice(bet.exit_price ?? bet.entry_price)} (entry ${formatPrice(bet.entry_price)}): ${signed}. ` +
    `That is the first published quote${when} at or beyond the level, so after a gap it is beyond it.`
  );
}

export function exitText(bet: Parameters<typeof exitSummary>[0] & { id: number }, webUrl: string): string {
  return `${exitSummary(bet)}\n${betUrl(webUrl, bet.id)}`;
}
