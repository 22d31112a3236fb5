// Failed-login throttling per client IP + account. After a few failures each
// further attempt must wait a growing delay (1 s, 2 s, 4 s, … up to 15 min).
// Keyed by IP and account together, a stranger elsewhere cannot lock a user
// out; a success clears the record. An attempt counts as a failure from the
// moment it is let through (claim), so parallel guesses cannot slip past.
import type { Redis } from 'ioredis';

const MAX_DELAY_MS = 15 * 60 * 1000;
const FORGET_AFTER_MS = 60 * 60 * 1000;

export interface LoginThrottle {
  /**
   * Claims one login attempt for ip+account: 0 when it may go ahead, and it
   * then counts as a failure until recordSuccess clears it; otherwise the
   * milliseconds still to wait, and nothing is counted. The check and the
   * count are one step, so a burst of parallel guesses gets no more tries than
   * the same guesses one after another.
   */
  claim(ip: string, account: string, now: number): Promise<number>;
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

  async claim(ip: string, account: string, now: number): Promise<number> {
    // No await in here: the check and the count happen in one turn of the event loop.
    const key = keyOf(ip, account);
    const e = this.entries.get(key);
    if (e && e.until > now) return e.until - now;
    if (!e && this.entries.size > 100_000) this.prune(now);
    const next = e ?? { failures: 0, until: 0, last: now };
    next.failures += 1;
    next.last = now;
    next.until = now + delayAfter(next.failures, this.freeFailures);
    this.entries.set(key, next);
    return 0;
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    this.entries.delete(keyOf(ip, account));
  }

  private prune(now: number): void {
    for (const [k, e] of this.entries) if (now - e.last > FORGET_AFTER_MS && e.until <= now) this.entries.delete(k);
  }
}

/** claim() of MemoryLoginThrottle as one Redis script, so instances share it atomically. */
const CLAIM_SCRIPT = `
local now = tonumber(ARGV[1])
local waitUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
if waitUntil > now then return waitUntil - now end
local failures = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local free = tonumber(ARGV[2])
if failures >= free then
  local delay = math.min(1000 * 2 ^ (failures - free), tonumber(ARGV[3]))
  redis.call('SET', KEYS[2], string.format('%d', now + delay), 'PX', string.format('%d', delay))
end
return 0
`;

/** The same rule shared by every instance through Redis. */
export class RedisLoginThrottle implements LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly freeFailures: number,
    private readonly prefix = 'login-throttle:',
  ) {}

  async claim(ip: string, account: string, now: number): Promise<number> {
    const key = keyOf(ip, account);
    const wait = await this.redis.eval(
      CLAIM_SCRIPT,
      2,
      `${this.prefix}count:${key}`,
      `${this.prefix}until:${key}`,
      now,
      this.freeFailures,
      MAX_DELAY_MS,
      FORGET_AFTER_MS,
    );
    return Number(wait);
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    const key = keyOf(ip, account);
    await this.redis.del(`${this.prefix}count:${key}`, `${this.prefix}until:${key}`);
  }
}
