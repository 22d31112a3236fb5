// Failed-login throttling per client IP + account. After a few failures each
// further attempt must wait a growing delay (1 s, 2 s, 4 s, … up to 15 min).
// Keyed by IP and account together, a stranger elsewhere cannot lock a user
// out; a success clears the record.
//
// An attempt is counted when it starts, before the password is checked (as if
// it failed), in one atomic step with the wait check: parallel guesses, on one
// instance or spread over several, cannot all pass the check before the first
// failure is written. A success then clears the count.
import type { Redis } from 'ioredis';

const MAX_DELAY_MS = 15 * 60 * 1000;
const FORGET_AFTER_MS = 60 * 60 * 1000;

export interface LoginThrottle {
  /**
   * Starts an attempt: 0 when it may go ahead (it is now counted as a
   * failure until recordSuccess), otherwise the milliseconds the caller must
   * still wait (nothing counted).
   */
  begin(ip: string, account: string, now: number): Promise<number>;
  recordSuccess(ip: string, account: string): Promise<void>;
}

/** The wait after `failures` counted attempts, when the first `freeFailures` are free. */
export function delayAfter(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(1000 * 2 ** (failures - freeFailures), MAX_DELAY_MS);
}

const keyOf = (ip: string, account: string) => `${ip}|${account}`;

export class MemoryLoginThrottle implements LoginThrottle {
  private readonly entries = new Map<string, { failures: number; until: number; last: number }>();

  constructor(private readonly freeFailures: number) {}

  // No await inside: the check and the count happen in one turn of the event loop.
  async begin(ip: string, account: string, now: number): Promise<number> {
    const key = keyOf(ip, account);
    const e = this.entries.get(key);
    if (e && e.until > now) return e.until - now;
    if (this.entries.size > 100_000) this.prune(now);
    const entry = e ?? { failures: 0, until: 0, last: now };
    entry.failures += 1;
    entry.last = now;
    entry.until = now + delayAfter(entry.failures, this.freeFailures);
    this.entries.set(key, entry);
    return 0;
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    this.entries.delete(keyOf(ip, account));
  }

  private prune(now: number): void {
    for (const [k, e] of this.entries) if (now - e.last > FORGET_AFTER_MS && e.until <= now) this.entries.delete(k);
  }
}

/**
 * KEYS: count, until. ARGV: now, free failures, max delay, forget after.
 * Returns the wait in ms (nothing counted) or 0 (the attempt is counted).
 */
const BEGIN_SCRIPT = `
local now = tonumber(ARGV[1])
local untilAt = tonumber(redis.call('GET', KEYS[2]) or '0')
if untilAt > now then return untilAt - now end
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local free = tonumber(ARGV[2])
if n >= free then
  local delay = math.floor(math.min(1000 * 2 ^ (n - free), tonumber(ARGV[3])))
  redis.call('SET', KEYS[2], tostring(now + delay), 'PX', delay)
end
return 0
`;

/** The same rule shared by every instance through Redis; the check and the count run as one script. */
export class RedisLoginThrottle implements LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly freeFailures: number,
    private readonly prefix = 'login-throttle:',
  ) {}

  async begin(ip: string, account: string, now: number): Promise<number> {
    const key = keyOf(ip, account);
    const wait = await this.redis.eval(
      BEGIN_SCRIPT,
      2,
      `${this.prefix}count:${key}`,
      `${this.prefix}until:${key}`,
      String(now),
      String(this.freeFailures),
      String(MAX_DELAY_MS),
      String(FORGET_AFTER_MS),
    );
    return Number(wait);
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    const key = keyOf(ip, account);
    await this.redis.del(`${this.prefix}count:${key}`, `${this.prefix}until:${key}`);
  }
}
