// With REDIS_URL, instances share the price cache: one provider call serves both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { createTestApp, registerAndLogin } from '../helpers/app.js';
import { REDIS_URL } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

test('two instances on one Redis share quotes', {
  skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set: shared price cache test skipped',
}, async () => {
  const redis = new Redis(REDIS_URL as string);
  const prices = new FakePriceProvider();
  const a = await createTestApp('sqlite', { deps: { prices, redis } });
  const b = await createTestApp('sqlite', { deps: { prices, redis } });
  try {
    const ua = await registerAndLogin(a.app);
    const ub = await registerAndLogin(b.app);
    b.clock.set(a.clock.now());
    assert.equal((await a.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: ua.cookie } })).json().price, 100);
    assert.equal((await b.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: ub.cookie } })).json().price, 100);
    assert.equal(prices.calls, 1);
  } finally {
    await a.close();
    await b.close();
    const keys = await redis.keys(`price:${prices.name}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});

test('a visitor on one instance sees the quote another instance published, and neither asks the provider for it', {
  skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set: shared price cache test skipped',
}, async () => {
  const redis = new Redis(REDIS_URL as string);
  const prices = new FakePriceProvider();
  const a = await createTestApp('sqlite', { deps: { prices, redis } });
  const b = await createTestApp('sqlite', { deps: { prices, redis } });
  try {
    const ua = await registerAndLogin(a.app);
    b.clock.set(a.clock.now());
    const visitor = () => b.app.inject({ method: 'GET', url: '/instruments?q=AAPL' });
    assert.equal((await visitor()).json().instruments[0].quote, null, 'nothing published yet');
    assert.equal(prices.calls, 0);
    assert.equal((await a.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: ua.cookie } })).json().price, 100);
    assert.equal(prices.calls, 1);
    assert.equal((await visitor()).json().instruments[0].quote.price, 100);
    assert.equal(prices.calls, 1, "the visitor's read cost no provider call");
  } finally {
    await a.close();
    await b.close();
    const keys = await redis.keys(`price:${prices.name}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});
