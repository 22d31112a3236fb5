// Delivers the outbox (the notifications table), one periodic job per
// channel so a slow channel never holds back another. Each run claims a
// channel's due rows (FOR UPDATE SKIP LOCKED on PostgreSQL, so several
// instances never take the same one; SQLite's single connection serialises
// claims in-process), sends them one by one and records each outcome. A claim
// is a lease longer than twice the send timeout, renewed before a send once
// half of it has passed; a row whose lease ran out while it waited in the
// batch (and that another worker may have taken) is not sent. So a row is only
// ever sent again if a process dies between the send and its record
// (documented in README); one claimed by a process that died is taken by
// another worker once the lease has run out. What a channel is and how to add
// one: src/jobs/outbox-channel.ts.
import { randomBytes } from 'node:crypto';
import type { DatabaseHandle } from '../db/database.js';
import type { ChatTransportName, NotificationRow } from '../db/tables.js';
import { backoffMs, MAX_ATTEMPTS } from '../domain/notifications.js';
import type { Clock } from '../lib/clock.js';
import type { SendOutcome } from '../providers/chat/types.js';
import { findBetById } from '../repositories/bets.js';
import { claimDue, lockNotifications, markSent, renewClaim, updateClaimed } from '../repositories/outbox.js';
import { enqueueCancelNotice } from '../services/notifications.js';
import type { OutboxChannel } from './outbox-channel.js';
import type { JobDefinition, JobLogger } from './periodic-job.js';

export interface OutboxOptions {
  database: DatabaseHandle;
  clock: Clock;
  channels: OutboxChannel[];
  log: JobLogger;
  webUrl: string;
  /** Counts failed delivery attempts (metrics). */
  onDeliveryFailure?: (channel: string) => void;
  batchSize?: number;
  /** How long a claim lasts (renewed before a send once half of it has passed); must exceed twice the channel's send timeout. */
  leaseMs?: number;
  /** Pause between runs that found nothing to do. */
  idleMs?: number;
}

const NEVER_STOPPED = new AbortController().signal;

export class Outbox {
  readonly channels: readonly OutboxChannel[];
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly idleMs: number;

  constructor(private readonly o: OutboxOptions) {
    this.channels = o.channels;
    this.batchSize = o.batchSize ?? 20;
    this.leaseMs = o.leaseMs ?? 60_000;
    this.idleMs = o.idleMs ?? 1_000;
  }

  /** One run of every channel, or of the one named (tests drain with it). Returns how many rows were claimed. */
  async runOnce(only?: ChatTransportName): Promise<number> {
    let claimed = 0;
    for (const channel of this.channels) {
      if (only === undefined || channel.name === only) claimed += await this.deliverDue(channel, NEVER_STOPPED);
    }
    return claimed;
  }

  /** Each channel's delivery as a periodic job: again at once while a run fills its batch, otherwise after idleMs. */
  jobs(): Array<JobDefinition<number>> {
    return this.channels.map((channel) => ({
      name: `outbox ${channel.name}`,
      intervalMs: this.idleMs,
      run: (signal) => this.deliverDue(channel, signal),
      again: (claimed) => claimed >= this.batchSize,
    }));
  }

  /** One run of one channel: claims its due rows and tries each once; on `stopping` hands back what it has not started. */
  async deliverDue(channel: OutboxChannel, stopping: AbortSignal): Promise<number> {
    const { database, clock } = this.o;
    const { db } = database;
    const token = randomBytes(12).toString('hex');
    const now = clock.now();
    const rows = await claimDue(db, channel.name, token, now, now + this.leaseMs, this.batchSize);
    // Each delivery is recorded as soon as it is sent, so a process that dies
    // leaves at most one row sent but unrecorded. A claim is renewed only
    // once the batch has used half its lease (one durable commit a row, not two).
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (stopping.aborted) {
        // Shutting down: hand the untried rest back at once rather than holding it for a lease.
        await this.release(rows.slice(i), token, row.next_attempt_at);
        break;
      }
      // Still ours? The lease may have run out while earlier sends of the batch took long.
      if ((row.claimed_until ?? 0) - clock.now() < this.leaseMs / 2) {
        if (!(await renewClaim(db, row.id, token, clock.now() + this.leaseMs))) continue;
      }
      if (!(await channel.stillWanted(row))) {
        await updateClaimed(db, row.id, token, {
          status: 'dropped',
          last_error: 'no longer wanted (chat unlinked, address changed or notices turned off)',
          claim_token: null,
        });
        continue;
      }
      const outcome = await channel.send(row);
      channel.serviceAnswered?.(outcome.ok || outcome.reason !== 'retry', clock.now());
      if (outcome.ok) {
        await this.recordSent(row, channel);
        continue;
      }
      await this.recordFailure(row, token, channel, outcome);
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
      await updateClaimed(this.o.database.db, r.id, token, {
        next_attempt_at: Math.max(notBefore, r.next_attempt_at),
        claim_token: null,
        claimed_until: null,
      });
    }
  }

  private async recordSent(row: NotificationRow, channel: OutboxChannel): Promise<void> {
    const { database, clock, webUrl } = this.o;
    await database.transaction(async (trx) => {
      const now = clock.now();
      const [current] = await lockNotifications(trx, [row.id]);
      await markSent(trx, [row.id], now);
      // The bet was cancelled while this opening notice was on its way: the
      // follower did get it, so the cancellation is owed after all.
      if (current && current.status === 'dropped' && current.kind === 'bet_opened' && current.bet_id !== null && current.user_id !== null) {
        const bet = await findBetById(trx, current.bet_id);
        if (bet && bet.status === 'CANCELLED') {
          await enqueueCancelNotice(
            trx,
            { transport: channel.name, webUrl },
            bet,
            current.user_id,
            current.transport,
            now,
            current.push_subscription_id,
          );
        }
      }
    });
  }

  private async recordFailure(
    row: NotificationRow,
    token: string,
    channel: OutboxChannel,
    outcome: Exclude<SendOutcome, { ok: true }>,
  ): Promise<void> {
    const { database, clock, log } = this.o;
    const { db } = database;
    const attempts = row.attempts + 1;
    this.o.onDeliveryFailure?.(row.transport);
    const { blocked } = channel;
    if (outcome.reason === 'blocked' && blocked) {
      await database.transaction(async (trx) => {
        await updateClaimed(trx, row.id, token, {
          status: 'failed',
          attempts,
          last_error: `${blocked.reason} (${outcome.error})`,
          claim_token: null,
        });
        await blocked.follow(trx, row);
      });
      log.info({ notification: row.id, reason: blocked.reason }, 'recipient blocked the channel');
      return;
    }
    if (outcome.reason !== 'retry' || attempts >= MAX_ATTEMPTS) {
      const why = outcome.reason !== 'retry' ? outcome.error : `gave up after ${attempts} attempts: ${outcome.error}`;
      await updateClaimed(db, row.id, token, { status: 'failed', attempts, last_error: why, claim_token: null, claimed_until: null });
      log.warn({ notification: row.id, error: why }, 'notice not delivered');
      return;
    }
    const wait = outcome.retryAfterMs ?? backoffMs(attempts);
    await updateClaimed(db, row.id, token, {
      attempts,
      next_attempt_at: clock.now() + wait,
      last_error: outcome.error,
      claim_token: null,
      claimed_until: null,
    });
  }
}
