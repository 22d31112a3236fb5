// Drives the messaging side in tests: bets written straight to the database
// with their events emitted in the same transaction, as the bet lifecycle does.
import type { BetRow } from '../../src/db/tables.js';
import { Outbox } from '../../src/jobs/outbox.js';
import type { ChatTransport } from '../../src/providers/chat/types.js';
import { ChatChannel } from '../../src/services/chat-delivery.js';
import type { BetEventKind } from '../../src/services/events.js';
import type { TestApp, TestUser } from './app.js';

export const WEBHOOK_SECRET = 'webhook-secret-for-tests';
let updateId = 1;
let messageId = 1;

export async function insertOpenBet(t: TestApp, userId: number, ticker = 'AAPL', direction: 'LONG' | 'SHORT' = 'LONG'): Promise<BetRow> {
  const now = t.clock.now();
  return t.ctx.database.transaction(async (trx) => {
    const bet = await trx
      .insertInto('bets')
      .values({
        user_id: userId,
        ticker,
        direction,
        status: 'OPEN',
        entry_price: 187.25,
        exit_price: null,
        percentage_gain: null,
        target_date: null,
        settle_at: null,
        opened_at: now,
        closed_at: null,
        last_event_at: now,
        close_reason: null,
        source_bet_id: null,
        source_kind: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await t.ctx.events.emit(trx, 'betChanged', { kind: 'opened', bet, at: now });
    return bet;
  });
}

/** Ends a bet (cancel or settlement) and emits the event in the same transaction. */
export async function finishBet(
  t: TestApp,
  bet: BetRow,
  kind: Extract<BetEventKind, 'cancelled' | 'settled'>,
  exitPrice = bet.entry_price,
): Promise<BetRow> {
  const now = t.clock.now();
  return t.ctx.database.transaction(async (trx) => {
    const gain = kind === 'cancelled' ? 0 : ((exitPrice - bet.entry_price) / bet.entry_price) * 100;
    const updated = await trx
      .updateTable('bets')
      .set({
        status: kind === 'cancelled' ? 'CANCELLED' : 'CLOSED',
        exit_price: exitPrice,
        percentage_gain: gain,
        closed_at: now,
        last_event_at: now,
        close_reason: kind === 'cancelled' ? 'cancel' : 'settlement',
      })
      .where('id', '=', bet.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await t.ctx.events.emit(trx, 'betChanged', { kind, bet: updated, at: now });
    return updated;
  });
}

export async function follow(t: TestApp, follower: TestUser, followed: TestUser): Promise<void> {
  await t.ctx.db.insertInto('follows').values({ follower_id: follower.id, followed_id: followed.id, created_at: t.clock.now() }).execute();
}

export function textUpdate(chatId: number, text: string) {
  return {
    update_id: updateId++,
    message: {
      message_id: messageId++,
      date: 1_700_000_000,
      chat: { id: chatId, type: 'private', first_name: 'Tester' },
      from: { id: chatId, is_bot: false, first_name: 'Tester' },
      text,
    },
  };
}

/** A tap on an inline button under a message in the chat. */
export function callbackUpdate(chatId: number, data: string) {
  const id = updateId++;
  return {
    update_id: id,
    callback_query: {
      id: `cb${id}`,
      from: { id: chatId, is_bot: false, first_name: 'Tester' },
      chat_instance: `ci${chatId}`,
      message: { message_id: messageId++, date: 1_700_000_000, chat: { id: chatId, type: 'private', first_name: 'Tester' }, text: 'notice' },
      data,
    },
  };
}

export function postUpdate(t: TestApp, update: object, secret: string | null = WEBHOOK_SECRET) {
  return t.app.inject({
    method: 'POST',
    url: '/chat/webhook',
    payload: update,
    headers: secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret },
  });
}

export async function linkCode(t: TestApp, user: TestUser): Promise<{ code: string; deep_link: string | null }> {
  const res = await t.app.inject({ method: 'POST', url: '/chat/link-code', headers: { cookie: user.cookie } });
  if (res.statusCode !== 200) throw new Error(`link-code: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Links a Telegram chat through the webhook, as the bot would see it. */
export async function linkTelegram(t: TestApp, user: TestUser, chatId: number): Promise<void> {
  const { code } = await linkCode(t, user);
  const res = await postUpdate(t, textUpdate(chatId, `/start ${code}`));
  if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
}

export async function isLinked(t: TestApp, user: TestUser): Promise<boolean> {
  const res = await t.app.inject({ method: 'GET', url: '/chat/status', headers: { cookie: user.cookie } });
  return res.json().linked;
}

/** Runs the outbox's chat channel until nothing due is left. */
export async function drainOutbox(t: TestApp): Promise<void> {
  while ((await t.ctx.outbox.runOnce(t.ctx.chatTransport.name)) > 0);
}

/** An outbox of its own on the test app's database, with one chat channel sending through `transport` (a second worker, or a spy). */
export function chatOutbox(t: TestApp, transport: ChatTransport, opts: { batchSize?: number; leaseMs?: number } = {}): Outbox {
  return new Outbox({
    database: t.ctx.database,
    clock: t.clock,
    log: t.app.log,
    webUrl: t.ctx.config.webUrl,
    ...opts,
    channels: [new ChatChannel({ db: t.ctx.db, transport })],
  });
}
