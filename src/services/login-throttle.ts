// Failed-login throttling per client IP + account. After a few failures each
// further attempt must wait a growing delay (1 s, 2 s, 4 s, … up to 15 min).
// Keyed by IP and account together, a stranger elsewhere cannot lock a user
// out; a success clears the record.
import type { Redis } from 'ioredis';

const MAX_DELAY_MS = 15 * 60 * 1000;
const FORGET_AFTER_MS = 60 * 60 * 1000;

export interface LoginThrottle {
  /** Milliseconds the caller must still wait, 0 when an attempt is allowed. */
  waitMs(ip: string, account: string, now: number): Promise<number>;
  recordFailure(ip: string, account: string, now: number): Promise<void>;
  recordSuccess(ip: string, account: string): Promise<void>;
}

export function delayAfter(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(1000 * 2 ** (failures - freeFailures), MAX_DELAY_MS);
}

const keyOf = (ip: string, account: string) => `${ip}|${account}`;

export class MemoryLoginThrottle implements LoginThrottle {
  private readonly entries = new Map<string, { failures: number; until: number; last: number }>();

  constructor(private readonly freeFailures: number) {}

  async waitMs(ip: string, account: string, now: number): Promise<number> {
    const e = this.entries.get(keyOf(ip, account));
    return e ? Math.max(0, e.until - now) : 0;
  }

  async recordFailure(ip: string, account: string, now: number): Promise<void> {
    if (this.entries.size > 100_000) this.prune(now);
    const key = keyOf(ip, account);
    const e = this.entries.get(key) ?? { failures: 0, until: 0, last: now };
    e.failures += 1;
    e.last = now;
    e.until = now + delayAfter(e.failures, this.freeFailures);
    this.entries.set(key, e);
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    this.entries.delete(keyOf(ip, account));
  }

  private prune(now: number): void {
    for (const [k, e] of this.entries) if (now - e.last > FORGET_AFTER_MS && e.until <= now) this.entries.delete(k);
  }
}

/** The same rule shared by every instance through Redis. */
export class RedisLoginThrottle implements LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly freeFailures: number,
    private readonly prefix = 'login-throttle:',
  ) {}

  async waitMs(ip: string, account: string, now: number): Promise<number> {
    const until = await this.redis.get(`${this.prefix}until:${keyOf(ip, account)}`);
    return until ? Math.max(0, Number(until) - now) : 0;
  }

  async recordFailure(ip: string, account: string, now: number): Promise<void> {
    const key = keyOf(ip, account);
    const failures = await this.redis.incr(`${this.prefix}count:${key}`);
    await this.redis.pexpire(`${this.prefix}count:${key}`, FORGET_AFTER_MS);
    const delay = delayAfter(failures, this.freeFailures);
    if (delay > 0) await this.redis.set(`${this.prefix}until:${key}`, String(now + delay), 'PX', delay);
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    const key = keyOf(ip, account);
    await this.redis.del(`${this.prefix}count:${key}`, `${this.prefix}until:${key}`);
  }
}
