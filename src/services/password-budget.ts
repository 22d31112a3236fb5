// How many times an account may confirm its password in an hour (to change
// it, delete the account or change its address), whether the password is
// right or wrong. Each confirmation costs hashes even when it is right and is
// then no failure the login throttle would count, so without a budget a few
// accounts could keep the hash queue busy for ever. Logins are not counted
// here: their failures are throttled (login-throttle.ts) and the hash queue
// keeps places for them (passwords.ts). A fixed window per account, keyed by
// its email as the login throttle is, shared by every instance through Redis
// when there is one.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

const WINDOW_MS = 60 * 60 * 1000;

export interface PasswordBudget {
  /** Spends one confirmation of the account's: 0 when it may go ahead, else the milliseconds until the budget refills (nothing is spent). */
  spend(account: string, now: number): Promise<number>;
}

interface Window {
  start: number;
  used: number;
}

export class MemoryPasswordBudget implements PasswordBudget {
  // Bounded: losing a window only gives an account a fresh budget.
  private readonly windows = new LRUCache<string, Window>({ max: 100_000 });

  constructor(private readonly perHour: number) {}

  async spend(account: string, now: number): Promise<number> {
    let w = this.windows.get(account);
    if (!w || now - w.start >= WINDOW_MS) {
      w = { start: now, used: 0 };
      this.windows.set(account, w);
    }
    if (w.used >= this.perHour) return w.start + WINDOW_MS - now;
    w.used += 1;
    return 0;
  }
}

/** spend() of MemoryPasswordBudget as one Redis script: the check and the count are one step on every instance. */
const SPEND_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then return ttl end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(ARGV[2])
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

export class RedisPasswordBudget implements PasswordBudget {
  constructor(
    private readonly redis: Redis,
    private readonly perHour: number,
    private readonly prefix = 'password-checks:',
  ) {}

  async spend(account: string): Promise<number> {
    return Number(await this.redis.eval(SPEND_SCRIPT, 1, `${this.prefix}${account}`, this.perHour, WINDOW_MS));
  }
}
