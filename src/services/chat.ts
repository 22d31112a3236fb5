// Linking a messaging chat to an account, and what the bot does with the
// updates it receives (the webhook, long polling and the local link page all
// come through here).
import { createHash, randomBytes } from 'node:crypto';
import type { Update } from 'grammy/types';
import type { AppContext } from '../context.js';
import { LINK_CODE_TTL_MS, parseChatText, REPLIES } from '../domain/notifications.js';
import { TelegramTransport } from '../providers/chat/telegram.js';
import {
  type ChatAddress,
  deleteLinkOfChat,
  deleteLinkOfUser,
  findLinkOfChat,
  findLinkOfUser,
  peekLinkCode,
  putLinkCode,
  takeLinkCode,
  upsertLink,
} from '../repositories/chat-links.js';
import { dropPendingOfChat, dropPendingOfUser, enqueueNotification } from '../repositories/notifications.js';
import { claimUpdate, deleteUpdatesBefore, findUpdate, type UpdateKey } from '../repositories/chat-updates.js';
import { findUserById } from '../repositories/users.js';
import { type BetDeps, openedMessage } from './bets.js';
import type { BetEvent } from './events.js';
import { type CopyKind, copiedText, tailOrFadeOutcome } from './tail-fade.js';

/** What the chat uses of the context: a button press opens a bet, so the bet lifecycle's part too. */
export type ChatDeps = BetDeps & Pick<AppContext, 'chatTransport'>;

/** Telegram redelivers an update for up to a day; a week of keys is kept. */
export const UPDATE_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * Records the update being handled, inside the transaction that acts on it
 * (with the answer to a button press); false when it was handled before, and
 * then that transaction must do nothing. Handlers called for anything but an
 * update (the local link page) get `anyUpdate`.
 */
export type Once = (trx: AppContext['db'], answer?: string | null) => Promise<boolean>;
const anyUpdate: Once = async () => true;

function onceFor(ctx: ChatDeps, key: UpdateKey): Once {
  return async (trx, answer = null) => {
    const now = ctx.clock.now();
    if (!(await claimUpdate(trx, key, now, answer))) return false;
    await deleteUpdatesBefore(trx, now - UPDATE_RETENTION_MS);
    return true;
  };
}

/** Thrown inside a transaction to roll it back: the update was handled by another delivery meanwhile. */
class AlreadyHandled extends Error {}

const HANDLED_BEFORE = 'Already done.';

export function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/** The local stand-in's chat for a user: with no messaging service there is one "chat" per account. */
export function localChat(userId: number): ChatAddress {
  return { transport: 'log', chatId: `local:${userId}` };
}

export async function chatStatus(ctx: ChatDeps, userId: number): Promise<{ linked: boolean }> {
  return { linked: (await findLinkOfUser(ctx.db, userId, ctx.chatTransport.name)) !== undefined };
}

export async function createLinkCode(ctx: ChatDeps, userId: number): Promise<{ code: string; deep_link: string | null }> {
  // 128 random bits, base64url: fits Telegram's /start parameter (A-Za-z0-9_-, up to 64).
  const code = randomBytes(16).toString('base64url');
  const now = ctx.clock.now();
  await putLinkCode(ctx.db, userId, hashCode(code), now, now + LINK_CODE_TTL_MS);
  const { telegram, publicUrl } = ctx.config;
  let deepLink: string | null;
  if (ctx.chatTransport.name === 'telegram') {
    deepLink = telegram.botUsername ? `https://t.me/${encodeURIComponent(telegram.botUsername)}?start=${code}` : null;
  } else {
    deepLink = `${publicUrl}/chat/local/link/${code}`;
  }
  return { code, deep_link: deepLink };
}

export async function unlinkChat(ctx: ChatDeps, userId: number): Promise<{ success: boolean }> {
  await ctx.database.transaction(async (trx) => {
    await deleteLinkOfUser(trx, userId);
    await dropPendingOfUser(trx, userId);
  });
  return { success: true };
}

async function reply(ctx: ChatDeps, trx: AppContext['db'], chat: ChatAddress, userId: number | null, text: string): Promise<void> {
  await enqueueNotification(
    trx,
    { user_id: userId, transport: chat.transport, chat_id: chat.chatId, kind: 'chat_reply', text, bet_id: null },
    ctx.clock.now(),
  );
}

/** Links the chat with a one-time code and queues the answer to the chat. Returns the linked user, or null for a bad code. */
export async function linkWithCode(ctx: ChatDeps, chat: ChatAddress, code: string, once: Once = anyUpdate): Promise<number | null> {
  return ctx.database.transaction(async (trx) => {
    if (!(await once(trx))) return null;
    const now = ctx.clock.now();
    const userId = await takeLinkCode(trx, hashCode(code), now);
    const user = userId === null ? undefined : await findUserById(trx, userId);
    if (!user) {
      await reply(ctx, trx, chat, null, REPLIES.badCode);
      return null;
    }
    await upsertLink(trx, user.id, chat, now);
    await reply(ctx, trx, chat, user.id, REPLIES.linked(user.username));
    return user.id;
  });
}

/** /stop in the chat: unlinks it and says so. */
export async function stopChat(ctx: ChatDeps, chat: ChatAddress, once: Once = anyUpdate): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    if (!(await once(trx))) return;
    const userId = await deleteLinkOfChat(trx, chat);
    if (userId !== null) await dropPendingOfUser(trx, userId);
    await reply(ctx, trx, chat, userId, userId === null ? REPLIES.notLinked : REPLIES.stopped);
  });
}

/** Account deletion: the chat link, any code and every notice of the user go. */
export async function forgetUser(trx: AppContext['db'], userId: number): Promise<void> {
  await deleteLinkOfUser(trx, userId);
  await trx.deleteFrom('chat_link_codes').where('user_id', '=', userId).execute();
  await trx.deleteFrom('notifications').where('user_id', '=', userId).execute();
}

/** The chat blocked the bot (or removed it): unlink silently, nothing can reach it. */
export async function forgetChat(ctx: ChatDeps, chat: ChatAddress, reason: string, once: Once = anyUpdate): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    if (!(await once(trx))) return;
    await deleteLinkOfChat(trx, chat);
    await dropPendingOfChat(trx, chat, reason);
  });
}

/** A reply and nothing else, unless the update was handled before. */
async function replyOnce(ctx: ChatDeps, chat: ChatAddress, userId: number | null, text: string, once: Once): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    if (await once(trx)) await reply(ctx, trx, chat, userId, text);
  });
}

export async function handleChatText(ctx: ChatDeps, chat: ChatAddress, text: string, once: Once = anyUpdate): Promise<void> {
  const cmd = parseChatText(text);
  switch (cmd.kind) {
    case 'start':
      if (cmd.code) await linkWithCode(ctx, chat, cmd.code, once);
      else await replyOnce(ctx, chat, null, REPLIES.noCode, once);
      return;
    case 'code':
      await linkWithCode(ctx, chat, cmd.code, once);
      return;
    case 'stop':
      await stopChat(ctx, chat, once);
      return;
    default: {
      const linked = await findLinkOfChat(ctx.db, chat);
      await replyOnce(ctx, chat, linked ? linked.user_id : null, REPLIES.help, once);
    }
  }
}

/** The user a live code belongs to, without using it up (the local page shows whose link it confirms). */
export async function codeOwner(ctx: ChatDeps, code: string): Promise<number | null> {
  return peekLinkCode(ctx.db, hashCode(code), ctx.clock.now());
}

/** The username behind a live code, or null for an unknown, used or expired one. */
export async function codeOwnerName(ctx: ChatDeps, code: string): Promise<string | null> {
  const owner = await codeOwner(ctx, code);
  const user = owner === null ? undefined : await findUserById(ctx.db, owner);
  return user?.username ?? null;
}

/** A button press answered at once (in the webhook's response, or by an API call when polling). */
export interface CallbackAnswer {
  callbackQueryId: string;
  text: string;
}

/**
 * Handles one Telegram update, once: a redelivery of the same update_id (a
 * webhook call Telegram retries, a poll repeated after a crash), even one
 * handled concurrently by another instance, acts no more; a button press is
 * answered again as the first time. Private chats only: a group cannot be a
 * person's notification channel.
 */
export async function handleTelegramUpdate(ctx: ChatDeps, update: Update): Promise<CallbackAnswer | null> {
  const key: UpdateKey = { transport: 'telegram', key: String(update.update_id) };
  const cb = update.callback_query;
  const answerOf = async (): Promise<CallbackAnswer | null> =>
    cb ? { callbackQueryId: cb.id, text: (await findUpdate(ctx.db, key))?.answer ?? HANDLED_BEFORE } : null;
  // The common redelivery ends here; the record written with each action is what decides.
  if (await findUpdate(ctx.db, key)) return answerOf();
  const once = onceFor(ctx, key);
  if (update.message?.text !== undefined && update.message.chat.type === 'private') {
    await handleChatText(ctx, { transport: 'telegram', chatId: String(update.message.chat.id) }, update.message.text, once);
    return null;
  }
  const member = update.my_chat_member;
  if (member && (member.new_chat_member.status === 'kicked' || member.new_chat_member.status === 'left')) {
    await forgetChat(ctx, { transport: 'telegram', chatId: String(member.chat.id) }, 'bot blocked by the user', once);
    return null;
  }
  if (cb) {
    const chat: ChatAddress = { transport: 'telegram', chatId: String(cb.message?.chat.id ?? cb.from.id) };
    const text = await pressButton(ctx, { chat, update: key }, cb.data ?? '');
    return text === null ? answerOf() : { callbackQueryId: cb.id, text };
  }
  return null;
}

/** For long polling, where no webhook response can carry the answer to a button press. */
export async function handleTelegramUpdateAndAnswer(ctx: ChatDeps, update: Update): Promise<void> {
  const answer = await handleTelegramUpdate(ctx, update);
  if (answer && ctx.chatTransport instanceof TelegramTransport) {
    await ctx.chatTransport.answerCallback(answer.callbackQueryId, answer.text);
  }
}

const BUTTON = /^(tail|fade):(\d{1,15})$/;

type Button = NonNullable<BetEvent['button']>;

/** Records the press, once, with its answer, and says the answer in the chat; rolls the caller's transaction back when another delivery did. */
async function answerPress(ctx: ChatDeps, trx: AppContext['db'], button: Button, userId: number, text: string): Promise<void> {
  if (!(await onceFor(ctx, button.update)(trx, text))) throw new AlreadyHandled();
  await reply(ctx, trx, button.chat, userId, text);
}

/** The betChanged handler for a bet opened by a chat's button: the press is answered in the opening's transaction. */
export function buttonAnswerHandler(ctx: ChatDeps) {
  return async (trx: AppContext['db'], { kind, bet, button }: BetEvent): Promise<void> => {
    if (kind !== 'opened' || !button || !bet.source_kind) return;
    await answerPress(ctx, trx, button, bet.user_id, copiedText(bet.source_kind, openedMessage(bet)));
  };
}

/**
 * A Tail or Fade button under an opening notice: the tap is the linked user's
 * explicit instruction. The outcome is answered at once and also said in the
 * chat; the bet, the reply and the update's record commit together. Null when
 * another delivery of the update did it.
 */
async function pressButton(ctx: ChatDeps, button: Button, data: string): Promise<string | null> {
  const m = BUTTON.exec(data);
  if (!m) return 'This button is no longer supported.';
  const link = await findLinkOfChat(ctx.db, button.chat);
  if (!link) return REPLIES.notLinked;
  try {
    const outcome = await tailOrFadeOutcome(ctx, link.user_id, Number(m[2]), m[1] as CopyKind, button);
    // Refused: nothing was written, so the refusal is recorded (and said) on its own.
    if (!outcome.recorded) await ctx.database.transaction((trx) => answerPress(ctx, trx, button, link.user_id, outcome.text));
    return outcome.text;
  } catch (err) {
    if (err instanceof AlreadyHandled) return null;
    throw err;
  }
}
