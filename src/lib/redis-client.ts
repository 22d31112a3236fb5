// The service's Redis client. Loaded only when REDIS_URL is set: loading
// ioredis costs start time a single instance does not need.
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/**
 * Commands issued in one turn of the event loop leave in one write, and their
 * answers arrive together (ioredis's auto-pipelining): under load each
 * request's rate-limit script and quote read would otherwise be a socket
 * write and a read of their own. Commands keep their order; while one batch
 * awaits its answers the next one gathers, and a lone command leaves at the
 * end of the turn it was issued in.
 */
export const REDIS_OPTIONS: RedisOptions = { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true };

export function connectRedis(url: string): Redis {
  const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  return new Client(url, REDIS_OPTIONS);
}
