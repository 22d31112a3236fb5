// Delivers the notification outbox. Each run claims due notices (FOR UPDATE
// SKIP LOCKED on PostgreSQL, so several instances never take the same one;
// SQLite's single connection serialises claims in-process), sends them one by
// one and records each outcome. A claim is a lease longer than twice the send
// timeout, renewed before a send once half of it has passed; a notice whose lease ran out while it waited in the
// batch (and that another worker may have taken) is not sent. So a notice is
// only ever sent again if a process dies between the send and its record
// (documented in README); one claimed by a process that died is taken by
// another worker once the lease has run out.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import type { NotificationRow } from '../db/tables.js';
import { backoffMs, MAX_ATTEMPTS } from '../domain/notifications.js';
import type { Clock } from '../lib/clock.js';
import type { ChatTransport, SendOutcome } from '../providers/chat/types.js';
import { deleteLinkOfChat, findLinkOfUser } from '../repositories/chat-links.js';
import { claimDue, dropPendingOfChat, lockNotifications, renewClaim, updateNotification } from '../repositories/notifications.js';
import { enqueueCancelNotice } from '../services/notifications.js';
import type { ProviderStatus } from '../services/provider-status.js';

export interface OutboxOptions {
  database: DatabaseHandle;
  clock: Clock;
  transport: ChatTransport;
  log: FastifyBaseLogger;
  webUrl: string;
  /** Counts failed delivery attempts (metrics). */
  onDeliveryFailure?: (transport: string) => void;
  /** Told whether the transport itself works (a chat refusing us says nothing about it). */
  transportStatus?: ProviderStatus;
  batchSize?: number;
  /** How long a claim lasts (renewed before a send once half of it has passed); must exceed twice the transport's send timeout. */
  leaseMs?: number;
  /** Pause between runs that found nothing to do. */
  idleMs?: number;
  /** Whether a claimed row is still to be sent (default: a follower notice goes only to the chat still linked). */
  stillWanted?: (row: NotificationRow) => Promise<boolean>;
  /** Run at the start of each run (the email worker queues the digests now due, which the run then sends). */
  beforeRun?: () => Promise<void>;
}

const BET_NOTICES = new Set(['bet_opened', 'bet_cancelled', 'bet_settled']);

export class OutboxWorker {
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly idleMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = true;
  /** Set by stop(): the run in progress finishes the notice in hand and returns the rest. */
  private stopping = false;

  constructor(private readonly o: OutboxOptions) {
    this.batchSize = o.batchSize ?? 20;
    this.leaseMs = o.leaseMs ?? 60_000;
    this.idleMs = o.idleMs ?? 1_000;
  }

  /** One pass: claims due notices and tries each once. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    await this.o.beforeRun?.();
    return this.deliverDue();
  }

  private async deliverDue(): Promise<number> {
    const { database, clock, transport } = this.o;
    const { db, dialect } = database;
    const token = randomBytes(12).toString('hex');
    const now = clock.now();
    const rows = await claimDue(db, dialect, transport.name, token, now, now + this.leaseMs, this.batchSize);
    // Each delivery is recorded as soon as it is sent, so a process that dies
    // leaves at most one notice sent but unrecorded. A claim is renewed only
    // once the batch has used half its lease (one durable commit a notice,
    // not two).
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (this.stopping) {
        // Shutting down: hand the untried rest back at once rather than holding it for a lease.
        await this.release(rows.slice(i), token, row.next_attempt_at);
        break;
      }
      // Still ours? The lease may have run out while earlier sends of the batch took long.
      if ((row.claimed_until ?? 0) - clock.now() < this.leaseMs / 2) {
        if (!(await renewClaim(db, row.id, token, clock.now() + this.leaseMs))) continue;
      }
      if (!(await this.stillWanted(row))) {
        await updateNotification(db, row.id, token, {
          status: 'dropped',
          last_error: 'no longer wanted (chat unlinked, address changed or notices turned off)',
          claim_token: null,
        });
        continue;
      }
      const outcome = await transport.send({ chatId: row.chat_id, text: row.text, kind: row.kind, betId: row.bet_id, userId: row.user_id });
      if (outcome.ok || outcome.reason !== 'retry') this.o.transportStatus?.succeeded();
      else this.o.transportStatus?.failed(clock.now());
      if (outcome.ok) {
        await this.recordSent(row);
        continue;
      }
      await this.recordFailure(row, token, outcome);
      if (outcome.reason === 'retry' && outcome.retryAfterMs !== undefined) {
        // The service asked everyone to wait: put the rest of the batch back, untried.
        await this.release(rows.slice(i + 1), token, clock.now() + outcome.retryAfterMs);
        break;
      }
    }
    return rows.length;
  }

  private async release(rows: NotificationRow[], token: string, notBefore: number): Promise<void> {
    for (const r of rows) {
      await updateNotification(this.o.database.db, r.id, token, {
        next_attempt_at: Math.max(notBefore, r.next_attempt_at),
        claim_token: null,
        claimed_until: null,
      });
    }
  }

  /** A follower notice goes only to the chat the user still has linked. */
  private async stillWanted(row: NotificationRow): Promise<boolean> {
    if (this.o.stillWanted) return this.o.stillWanted(row);
    if (!BET_NOTICES.has(row.kind) || row.user_id === null) return true;
    const link = await findLinkOfUser(this.o.database.db, row.user_id, row.transport);
    return link !== undefined && link.chat_id === row.chat_id;
  }

  /** Records a delivery as sent. */
  private async recordSent(row: NotificationRow): Promise<void> {
    const { database, clock, webUrl, transport } = this.o;
    const { dialect } = database;
    const ids = [row.id];
    await database.transaction(async (trx) => {
      const now = clock.now();
      const current = await lockNotifications(trx, dialect, ids);
      await trx
        .updateTable('notifications')
        .set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), claim_token: null, claimed_until: null, last_error: null }))
        .where('id', 'in', ids)
        .execute();
      for (const c of current) {
        // The bet was cancelled while this opening notice was on its way: the
        // follower did get it, so the cancellation is owed after all.
        if (c.status === 'dropped' && c.kind === 'bet_opened' && c.bet_id !== null && c.user_id !== null) {
          const bet = await trx.selectFrom('bets').selectAll().where('id', '=', c.bet_id).executeTakeFirst();
          if (bet && bet.status === 'CANCELLED') {
            await enqueueCancelNotice(trx, { transport: transport.name, webUrl }, bet, c.user_id, c.transport, now);
          }
        }
      }
    });
  }

  private async recordFailure(row: NotificationRow, token: string, outcome: Exclude<SendOutcome, { ok: true }>): Promise<void> {
    const { database, clock, log } = this.o;
    const { db } = database;
    const now = clock.now();
    const attempts = row.attempts + 1;
    this.o.onDeliveryFailure?.(row.transport);
    if (outcome.reason === 'blocked') {
      const chat = { transport: row.transport, chatId: row.chat_id };
      await database.transaction(async (trx) => {
        await updateNotification(trx, row.id, token, {
          status: 'failed',
          attempts,
          last_error: `chat blocked the bot (${outcome.error})`,
          claim_token: null,
        });
        await deleteLinkOfChat(trx, chat);
        await dropPendingOfChat(trx, chat, 'chat blocked the bot');
      });
      log.info({ notification: row.id }, 'chat blocked the bot: unlinked');
      return;
    }
    if (outcome.reason === 'permanent' || attempts >= MAX_ATTEMPTS) {
      const why = outcome.reason === 'permanent' ? outcome.error : `gave up after ${attempts} attempts: ${outcome.error}`;
      await updateNotification(db, row.id, token, { status: 'failed', attempts, last_error: why, claim_token: null, claimed_until: null });
      log.warn({ notification: row.id, error: why }, 'notice not delivered');
      return;
    }
    const wait = outcome.retryAfterMs ?? backoffMs(attempts);
    await updateNotification(db, row.id, token, {
      attempts,
      next_attempt_at: now + wait,
      last_error: outcome.error,
      claim_token: null,
      claimed_until: null,
    });
  }

  /** Runs continuously until stop(): right away again while there is a backlog, otherwise after idleMs. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    const loop = async (): Promise<void> => {
      let claimed = 0;
      try {
        this.running = this.runOnce();
        claimed = await this.running;
      } catch (err) {
        this.o.log.error({ err }, 'outbox run failed');
      } finally {
        this.running = null;
      }
      if (!this.stopped) this.timer = setTimeout(() => void loop(), claimed >= this.batchSize ? 0 : this.idleMs);
    };
    this.timer = setTimeout(() => void loop(), 0);
  }

  /** Stops the loop and waits for the run in progress to record what it sent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
