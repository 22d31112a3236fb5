// Failed password checks (logins, and the password a signed-in user confirms
// with), throttled two ways:
// - per client IP + account: after a few failures each further attempt must
//   wait a growing delay (1 s, 2 s, 4 s, … up to 15 min). Keyed by IP and
//   account together, a stranger elsewhere cannot lock a user out; a success
//   clears the record.
// - per account, from any address: after more failures within an hour than
//   one person makes, every address waits a growing delay for that account
//   (1 s, 2 s, … up to a short cap), so guesses spread over many addresses
//   are slowed too. The cap stays short and the count is forgotten an hour
//   after the last failure, so an attack slows the owner down but never locks
//   them out for good; an address the owner signed in from recently is exempt.
// An attempt counts as a failure from the moment it is let through (claim),
// so parallel guesses cannot slip past.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

const MAX_DELAY_MS = 15 * 60 * 1000;
const FORGET_AFTER_MS = 60 * 60 * 1000;
/** How long a successful sign-in exempts its address from the account-wide delay. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600 * 1000;

export interface LoginThrottleLimits {
  /** Failures per IP+account before delays start. */
  freeFailures: number;
  /** Failures per account, from any address within an hour, before every address waits. */
  accountFreeFailures: number;
  /** The longest account-wide wait. */
  accountMaxDelayMs: number;
}

export interface LoginThrottle {
  /**
   * Claims one password attempt for ip+account: 0 when it may go ahead, and it
   * then counts as a failure until recordSuccess clears it; otherwise the
   * milliseconds still to wait, and nothing is counted. The check and the
   * count are one step, so a burst of parallel guesses gets no more tries than
   * the same guesses one after another.
   */
  claim(ip: string, account: string, now: number): Promise<number>;
  /** The password was right: the attempt was no failure, and the address is known for the account. */
  recordSuccess(ip: string, account: string): Promise<void>;
}

export function delayAfter(failures: number, freeFailures: number, maxDelayMs = MAX_DELAY_MS): number {
  if (failures < freeFailures) return 0;
  return Math.min(1000 * 2 ** (failures - freeFailures), maxDelayMs);
}

const keyOf = (ip: string, account: string) => `${ip}|${account}`;

interface Entry {
  failures: number;
  until: number;
  last: number;
}

export class MemoryLoginThrottle implements LoginThrottle {
  private readonly pairs = new Map<string, Entry>();
  private readonly accounts = new Map<string, Entry>();
  // Bounded: losing an entry only loses an exemption.
  private readonly known = new LRUCache<string, true>({ max: 100_000, ttl: KNOWN_ADDRESS_MS, ttlAutopurge: false });

  constructor(private readonly limits: LoginThrottleLimits) {}

  async claim(ip: string, account: string, now: number): Promise<number> {
    // No await in here: the checks and the counts happen in one turn of the event loop.
    const pairKey = keyOf(ip, account);
    const pair = this.live(this.pairs, pairKey, now);
    if (pair && pair.until > now) return pair.until - now;
    const acct = this.live(this.accounts, account, now);
    if (acct && acct.until > now && !this.known.has(pairKey)) return acct.until - now;
    if (!pair && this.pairs.size > 100_000) this.prune(this.pairs, now);
    if (!acct && this.accounts.size > 100_000) this.prune(this.accounts, now);
    this.pairs.set(pairKey, this.count(pair, now, this.limits.freeFailures, MAX_DELAY_MS));
    this.accounts.set(account, this.count(acct, now, this.limits.accountFreeFailures, this.limits.accountMaxDelayMs));
    return 0;
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    const pairKey = keyOf(ip, account);
    this.pairs.delete(pairKey);
    // The success's own claim was no failure.
    const acct = this.accounts.get(account);
    if (acct && acct.failures > 0) acct.failures -= 1;
    this.known.set(pairKey, true);
  }

  /** An entry, or undefined once it is forgotten (an hour after its last failure, no wait left). */
  private live(map: Map<string, Entry>, key: string, now: number): Entry | undefined {
    const e = map.get(key);
    if (e && now - e.last > FORGET_AFTER_MS && e.until <= now) {
      map.delete(key);
      return undefined;
    }
    return e;
  }

  private count(e: Entry | undefined, now: number, free: number, maxDelayMs: number): Entry {
    const next = e ?? { failures: 0, until: 0, last: now };
    next.failures += 1;
    next.last = now;
    const delay = delayAfter(next.failures, free, maxDelayMs);
    if (delay > 0) next.until = now + delay;
    return next;
  }

  private prune(map: Map<string, Entry>, now: number): void {
    for (const [k, e] of map) if (now - e.last > FORGET_AFTER_MS && e.until <= now) map.delete(k);
  }
}

/** claim() of MemoryLoginThrottle as one Redis script, so instances share it atomically. */
const CLAIM_SCRIPT = `
local now = tonumber(ARGV[1])
local pairUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
if pairUntil > now then return pairUntil - now end
if redis.call('EXISTS', KEYS[5]) == 0 then
  local accountUntil = tonumber(redis.call('GET', KEYS[4]) or '0')
  if accountUntil > now then return accountUntil - now end
end
local function count(countKey, untilKey, free, maxDelay)
  local failures = redis.call('INCR', countKey)
  redis.call('PEXPIRE', countKey, ARGV[4])
  if failures >= free then
    local delay = math.min(1000 * 2 ^ (failures - free), maxDelay)
    redis.call('SET', untilKey, string.format('%d', now + delay), 'PX', string.format('%d', delay))
  end
end
count(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
count(KEYS[3], KEYS[4], tonumber(ARGV[5]), tonumber(ARGV[6]))
return 0
`;

/** recordSuccess() of MemoryLoginThrottle as one Redis script. */
const SUCCESS_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2])
if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
redis.call('SET', KEYS[4], '1', 'PX', ARGV[1])
return 0
`;

/** The same rules shared by every instance through Redis. */
export class RedisLoginThrottle implements LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly limits: LoginThrottleLimits,
    private readonly prefix = 'login-throttle:',
  ) {}

  private keys(ip: string, account: string) {
    const pair = keyOf(ip, account);
    return [
      `${this.prefix}count:${pair}`,
      `${this.prefix}until:${pair}`,
      `${this.prefix}account-count:${account}`,
      `${this.prefix}account-until:${account}`,
      `${this.prefix}known:${pair}`,
    ];
  }

  async claim(ip: string, account: string, now: number): Promise<number> {
    const wait = await this.redis.eval(
      CLAIM_SCRIPT,
      5,
      ...this.keys(ip, account),
      now,
      this.limits.freeFailures,
      MAX_DELAY_MS,
      FORGET_AFTER_MS,
      this.limits.accountFreeFailures,
      this.limits.accountMaxDelayMs,
    );
    return Number(wait);
  }

  async recordSuccess(ip: string, account: string): Promise<void> {
    const [count, until, accountCount, , known] = this.keys(ip, account);
    await this.redis.eval(SUCCESS_SCRIPT, 4, count!, until!, accountCount!, known!, KNOWN_ADDRESS_MS);
  }
}
