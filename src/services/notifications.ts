// Notices. In the app: followed traders' bet events derived when read, stored
// notices for the rest, a read marker (src/repositories/user-notices.ts).
// To linked channels: deliveries written to the outbox inside each bet
// transaction (a betChanged handler), sent later by the outbox worker.
import type { Db } from '../db/database.js';
import type { BetRow, ChatTransportName } from '../db/tables.js';
import {
  cancelledSummary,
  cancelledText,
  exitSummary,
  exitText,
  openedSummary,
  openedText,
  settledSummary,
  settledText,
} from '../domain/notifications.js';
import { runTogether } from '../db/together.js';
import { findLinkOfUser } from '../repositories/chat-links.js';
import { emailNoticeAddress } from '../repositories/notice-settings.js';
import {
  dropPendingOpenings,
  enqueueForLinkedFollowersStatement,
  enqueueMail,
  enqueueNotification,
  sentOpeningRecipients,
} from '../repositories/notifications.js';
import {
  addUserNotice,
  advanceReadMarker,
  countUserNoticesAfter,
  findReadMarker,
  listUserNotices,
  type NoticeRecord,
} from '../repositories/user-notices.js';
import { enqueuePush, enqueuePushStatement } from '../repositories/push.js';
import { findUserById } from '../repositories/users.js';
import type { NoticeReadState, Notification } from '../schemas/chat.js';
import type { BetEvent } from './events.js';

export interface NoticeSettings {
  transport: ChatTransportName;
  webUrl: string;
}

async function ownerName(trx: Db, bet: BetRow): Promise<string> {
  return (await findUserById(trx, bet.user_id))?.username ?? 'A trader';
}

/**
 * Queues the cancellation notice for one follower who got the opening notice
 * on `channel`: their chat if still linked, or their address if they still
 * want each notice by email.
 */
export async function enqueueCancelNotice(
  trx: Db,
  s: NoticeSettings,
  bet: BetRow,
  followerId: number,
  channel: ChatTransportName,
  now: number,
  /** The device that got the opening, on the push channel. */
  deviceId: number | null = null,
): Promise<void> {
  const text = () => ownerName(trx, bet).then((owner) => cancelledText(owner, bet, s.webUrl));
  if (channel === 'push') {
    if (deviceId !== null) await enqueuePush(trx, { deviceId }, { kind: 'bet_cancelled', text: await text(), betId: bet.id }, now);
    return;
  }
  if (channel === 'email') {
    const to = await emailNoticeAddress(trx, followerId, 'each');
    if (to) await enqueueMail(trx, { userId: followerId, to, kind: 'bet_cancelled', text: await text(), betId: bet.id }, now);
    return;
  }
  const link = await findLinkOfUser(trx, followerId, s.transport);
  if (!link) return;
  await enqueueNotification(
    trx,
    { user_id: followerId, transport: link.transport, chat_id: link.chat_id, kind: 'bet_cancelled', text: await text(), bet_id: bet.id },
    now,
  );
}

async function onBetEvent(trx: Db, s: NoticeSettings, e: BetEvent): Promise<void> {
  const { bet, at } = e;
  if (e.kind === 'opened') {
    const text = openedText(e.ownerName ?? (await ownerName(trx, bet)), bet, s.webUrl);
    // Chats and mail, and push devices: one round trip on PostgreSQL (src/db/together.ts).
    await runTogether(
      trx,
      enqueueForLinkedFollowersStatement(trx, { followedId: bet.user_id, transport: s.transport, kind: 'bet_opened', text, betId: bet.id }, at),
      [enqueuePushStatement(trx, { followersOf: bet.user_id }, { kind: 'bet_opened', text, betId: bet.id }, at)],
    );
  } else if (e.kind === 'cancelled') {
    // A queued opening notice is dropped with nothing to take back; the
    // delivered ones get a cancellation. An opening notice in flight right now
    // is settled by the worker when it records the send (see jobs/outbox.ts).
    await dropPendingOpenings(trx, bet.id);
    // Push openings went per device: the cancellation goes to each device that got one.
    for (const r of await sentOpeningRecipients(trx, bet.id)) {
      if (r.transport !== 'push') await enqueueCancelNotice(trx, s, bet, r.userId, r.transport, at);
      else if (r.deviceId !== null) await enqueueCancelNotice(trx, s, bet, r.userId, 'push', at, r.deviceId);
    }
  } else if (e.kind === 'closed' && (bet.close_reason === 'stop_loss' || bet.close_reason === 'take_profit')) {
    // An automatic close is told to its owner only (followers hear of openings and cancellations, SPEC part 6):
    // in the app, in a linked chat, on the devices that chose it, and by email when they want each notice so.
    await addUserNotice(trx, { userId: bet.user_id, kind: 'bet_exit', text: exitSummary(bet), link: `bet/${bet.id}` }, at);
    const link = await findLinkOfUser(trx, bet.user_id, s.transport);
    const text = exitText(bet, s.webUrl);
    await enqueuePush(trx, { userId: bet.user_id }, { kind: 'bet_exit', text, betId: bet.id }, at);
    if (link) {
      await enqueueNotification(
        trx,
        { user_id: bet.user_id, transport: link.transport, chat_id: link.chat_id, kind: 'bet_exit', text, bet_id: bet.id },
        at,
      );
    }
    const to = await emailNoticeAddress(trx, bet.user_id, 'each');
    if (to) await enqueueMail(trx, { userId: bet.user_id, to, kind: 'bet_exit', text, betId: bet.id }, at);
  } else if (e.kind === 'settled') {
    // The owner's own result: a stored notice in the app, and a message in a linked chat.
    await addUserNotice(trx, { userId: bet.user_id, kind: 'bet_settled', text: settledSummary(bet), link: `bet/${bet.id}` }, at);
    await enqueuePush(trx, { userId: bet.user_id }, { kind: 'bet_settled', text: settledText(bet, s.webUrl), betId: bet.id }, at);
    const link = await findLinkOfUser(trx, bet.user_id, s.transport);
    if (!link) return;
    await enqueueNotification(
      trx,
      {
        user_id: bet.user_id,
        transport: link.transport,
        chat_id: link.chat_id,
        kind: 'bet_settled',
        text: settledText(bet, s.webUrl),
        bet_id: bet.id,
      },
      at,
    );
  }
}

/** The betChanged handler: what followers and the owner are told of a bet's change. */
export function noticesHandler(s: NoticeSettings) {
  return (trx: Db, e: BetEvent) => onBetEvent(trx, s, e);
}

/** One notice as the app shows it: a sentence without an address, and the app path it links to. */
export function toNotification(r: NoticeRecord, readUntil: number | null): Notification {
  const read = readUntil !== null && r.at <= readUntil;
  const created_at = new Date(r.at).toISOString();
  if (r.source === 'stored') {
    return { id: `notice-${r.ref_id}`, kind: r.kind, text: r.text ?? '', bet_id: null, link: r.link, created_at, read };
  }
  const bet = { ticker: r.ticker ?? '', direction: r.direction ?? 'LONG', entry_price: r.entry_price ?? 0 };
  const owner = r.actor ?? 'A trader';
  return {
    id: `${r.source}-${r.ref_id}`,
    kind: r.kind,
    text: r.source === 'opened' ? openedSummary(owner, bet) : cancelledSummary(owner, bet),
    bet_id: r.ref_id,
    link: `bet/${r.ref_id}`,
    created_at,
    read,
  };
}

export async function listNotifications(db: Db, userId: number, limit: number, offset: number): Promise<Notification[]> {
  const [rows, readUntil] = await Promise.all([listUserNotices(db, userId, limit, offset), findReadMarker(db, userId)]);
  return rows.map((r) => toNotification(r, readUntil));
}

export async function noticeReadState(db: Db, userId: number): Promise<NoticeReadState> {
  const readUntil = await findReadMarker(db, userId);
  return { unread: await countUserNoticesAfter(db, userId, readUntil), read_until: readUntil === null ? null : new Date(readUntil).toISOString() };
}

/** Marks read what is at or before `until` (now when absent; a future instant counts as now). */
export async function markNoticesRead(db: Db, userId: number, until: number | undefined, now: number): Promise<NoticeReadState> {
  await advanceReadMarker(db, userId, Math.min(until ?? now, now));
  return noticeReadState(db, userId);
}
