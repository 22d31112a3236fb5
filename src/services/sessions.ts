// Live sessions, kept briefly in each instance so an authenticated request
// need not read its session row, and dropped everywhere when one ends.
//
// An instance that ends a session (logout, password change, account deletion)
// drops it from its own memory at once, and, with Redis, publishes the
// revocation before answering: every other instance drops it when the message
// arrives, so there a session is kept up to SESSION_CACHE_MS. Without Redis no
// other instance hears of it, so the lifetime is NO_BUS_SESSION_CACHE_MS, the
// bound on how long another instance may still accept an ended session.
//
// A lookup that raced a revocation is not kept: each drop bumps a generation,
// and a row read before the latest drop is not remembered.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

export const SESSION_CACHE_MS = 60_000;
export const NO_BUS_SESSION_CACHE_MS = 2_000;
const SESSION_CACHE_SIZE = 50_000;
export const REVOCATION_CHANNEL = 'sessions:revoked';

/** One session, or every session of a user but one. */
export type Revocation = { sessionId: string } | { userId: number; exceptSessionId?: string };

interface Live {
  userId: number;
  expiresAt: number;
}

export class SessionCache {
  private readonly live: LRUCache<string, Live>;
  private generation = 0;
  private subscriber: Redis | null = null;
  private readonly delivered: Array<(r: Revocation) => void> = [];

  constructor(
    private readonly clock: Clock,
    private readonly redis: Redis | null,
  ) {
    this.live = new LRUCache<string, Live>({
      max: SESSION_CACHE_SIZE,
      ttl: redis ? SESSION_CACHE_MS : NO_BUS_SESSION_CACHE_MS,
      // Aged by the service's clock (tests move a fake one), read afresh at every look-up.
      perf: clock,
      ttlResolution: 0,
    });
  }

  /** Listens for revocations published by other instances (with Redis; a no-op without). */
  async start(): Promise<void> {
    if (!this.redis || this.subscriber) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      const revocation = parseRevocation(message);
      if (!revocation) return;
      this.drop(revocation);
      for (const listener of this.delivered) listener(revocation);
    });
    await subscriber.subscribe(REVOCATION_CHANNEL);
  }

  async stop(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) subscriber.disconnect();
  }

  /** Told of each revocation that arrived from Redis, after it took effect here (tests wait on it). */
  onDelivered(listener: (r: Revocation) => void): void {
    this.delivered.push(listener);
  }

  /** The user of a cached live session; undefined when only the database can tell. */
  userOf(sessionId: string): number | undefined {
    const live = this.live.get(sessionId);
    if (!live) return undefined;
    if (this.clock.now() >= live.expiresAt) {
      this.live.delete(sessionId);
      return undefined;
    }
    return live.userId;
  }

  /** Taken before reading a session row; pass it to remember. */
  ticket(): number {
    return this.generation;
  }

  /** Keeps a live session read at ticket, unless something was dropped since. */
  remember(ticket: number, sessionId: string, live: Live): void {
    if (ticket !== this.generation) return;
    this.live.set(sessionId, live);
  }

  /** Ends sessions here at once and, with Redis, on every instance: call after the change has committed, before answering. */
  async revoke(revocation: Revocation): Promise<void> {
    this.drop(revocation);
    if (this.redis) await this.redis.publish(REVOCATION_CHANNEL, JSON.stringify(revocation));
  }

  private drop(revocation: Revocation): void {
    this.generation += 1;
    if ('sessionId' in revocation) {
      this.live.delete(revocation.sessionId);
      return;
    }
    for (const [id, live] of this.live.entries()) {
      if (live.userId === revocation.userId && id !== revocation.exceptSessionId) this.live.delete(id);
    }
  }
}

function parseRevocation(message: string): Revocation | null {
  try {
    const value = JSON.parse(message) as Record<string, unknown>;
    if (typeof value.sessionId === 'string') return { sessionId: value.sessionId };
    if (typeof value.userId === 'number') {
      return typeof value.exceptSessionId === 'string' ? { userId: value.userId, exceptSessionId: value.exceptSessionId } : { userId: value.userId };
    }
  } catch {
    // Not ours: ignored.
  }
  return null;
}
