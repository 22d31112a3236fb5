// The service's Redis client (src/lib/redis-client.ts) sends the commands of
// one turn of the event loop in one write: requests in flight together share
// their round trips to Redis instead of making one each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../src/lib/redis-client.js';
import { RedisPriceStore } from '../../src/services/prices.js';
import { REDIS_URL } from '../helpers/db.js';

const skip = REDIS_URL ? false : 'TEST_REDIS_URL is not set: the Redis client test skipped';

/** Counts the writes to the client's socket while fn runs. */
async function writesDuring(redis: Redis, fn: () => Promise<unknown>): Promise<number> {
  const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
  const write = stream.write;
  let writes = 0;
  stream.write = (...args: unknown[]) => {
    writes += 1;
    return write.apply(stream, args);
  };
  try {
    await fn();
  } finally {
    stream.write = write;
  }
  return writes;
}

test('commands issued together leave in one write, each with its own answer, in order', { skip }, async () => {
  const redis = connectRedis(REDIS_URL as string);
  const prefix = `t_pipelining_${process.pid}_${Date.now()}:`;
  try {
    await redis.ping();
    const store = new RedisPriceStore(redis, prefix);
    const tickers = Array.from({ length: 20 }, (_, i) => `T${i}`);
    await Promise.all(tickers.map((t, i) => store.put(t, { price: i + 1, at: 1_000 + i })));
    let got: Array<{ price: number; at: number } | null> = [];
    const writes = await writesDuring(redis, async () => {
      got = await Promise.all(tickers.map((t) => store.get(t)));
    });
    assert.equal(writes, 1, 'twenty reads of one turn: one write');
    assert.deepEqual(
      got,
      tickers.map((_, i) => ({ price: i + 1, at: 1_000 + i })),
    );
    // A lone command is not held back for company.
    assert.equal(await writesDuring(redis, () => store.get('T3')), 1);
    // An error answers its own command only.
    const [bad, good] = await Promise.allSettled([redis.incr(`${prefix}T0`), store.get('T1')]);
    assert.equal(bad.status, 'rejected');
    assert.deepEqual(good.status === 'fulfilled' ? good.value : null, { price: 2, at: 1_001 });
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});
