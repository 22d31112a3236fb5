// Web Push as a channel of the outbox (transport 'push', the device in
// push_subscription_id): the outbox claims, retries and leases rows as for
// chats and mail; this encrypts each row for its device (RFC 8291, aes128gcm,
// by the web-push package), signs the request with the deployment's VAPID key
// (RFC 8292) and posts it to the device's push service. A push service that
// answers 404 or 410 has dropped the subscription: the device is removed.
import webpush from 'web-push';
import type { Db } from '../db/database.js';
import type { NotificationRow } from '../db/tables.js';
import type { OutboxChannel } from '../jobs/outbox-channel.js';
import { checkPushEndpoint, pushPayload } from '../domain/push.js';
import type { SendOutcome } from '../providers/chat/types.js';
import { deleteDevice, findDevice } from '../repositories/push.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PushDeliveryOptions {
  db: Db;
  vapid: VapidKeys;
  webUrl: string;
  extraOrigins: readonly string[];
  timeoutMs: number;
  /** A day: a notice older than that is no longer news. */
  ttlSeconds?: number;
}

/** Seconds from a Retry-After header (seconds or an HTTP date), if it says. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 3600) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), 3_600_000);
}

export class PushChannel implements OutboxChannel {
  readonly name = 'push' as const;

  constructor(private readonly o: PushDeliveryOptions) {}

  /** Still wanted: the device is still there, still its user's, still chooses this kind, and its endpoint is still one we call. */
  async stillWanted(row: NotificationRow): Promise<boolean> {
    if (row.push_subscription_id === null) return false;
    const device = await findDevice(this.o.db, Number(row.push_subscription_id));
    if (!device || device.user_id !== Number(row.user_id)) return false;
    if (!(device.kinds as string[]).includes(row.kind)) return false;
    return checkPushEndpoint(device.endpoint, this.o.extraOrigins).ok;
  }

  async send(row: NotificationRow): Promise<SendOutcome> {
    const device = row.push_subscription_id === null ? undefined : await findDevice(this.o.db, Number(row.push_subscription_id));
    if (!device) return { ok: false, reason: 'permanent', error: 'device removed' };
    const payload = JSON.stringify(
      pushPayload({ id: row.id, kind: row.kind, text: row.text, bet_id: row.bet_id === null ? null : Number(row.bet_id) }, this.o.webUrl),
    );
    let details: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      details = webpush.generateRequestDetails({ endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } }, payload, {
        vapidDetails: this.o.vapid,
        TTL: this.o.ttlSeconds ?? 86_400,
        contentEncoding: 'aes128gcm',
        urgency: 'normal',
      });
    } catch (err) {
      // Keys a browser would never give (they passed the shape check but not the curve).
      return { ok: false, reason: 'permanent', error: `cannot encrypt for this device: ${(err as Error).message}` };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(details.headers)) headers[k] = String(v);
    delete headers['Content-Length'];
    let res: Response;
    try {
      res = await fetch(details.endpoint, {
        method: 'POST',
        headers,
        body: details.body ? new Uint8Array(details.body) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      return { ok: false, reason: 'retry', error: `push service unreachable: ${(err as Error).message}` };
    }
    if (res.status >= 200 && res.status < 300) return { ok: true };
    const error = `push service answered ${res.status}`;
    if (res.status === 404 || res.status === 410) return { ok: false, reason: 'blocked', error };
    if (res.status === 429 || res.status >= 500)
      return { ok: false, reason: 'retry', error, retryAfterMs: retryAfterMs(res.headers.get('retry-after'), Date.now()) };
    // 400 (malformed), 401/403 (VAPID refused), 413 (too large), a redirect: sending again would not help.
    return { ok: false, reason: 'permanent', error };
  }

  /** The push service no longer knows the subscription: the device is removed, with what was queued for it. */
  readonly blocked = {
    reason: 'push subscription expired or unsubscribed',
    follow: async (trx: Db, row: NotificationRow): Promise<void> => {
      if (row.push_subscription_id !== null) await deleteDevice(trx, Number(row.push_subscription_id), null, this.blocked.reason);
    },
  };
}
