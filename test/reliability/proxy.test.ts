import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/config.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

// Per-IP limits key on request.ip; these tests check what that is behind a
// proxy and that a client cannot pick its own by sending X-Forwarded-For.
const limits = (max: number, loginFailuresBeforeDelay = 1000): Partial<Config> => ({
  rateLimits: {
    enabled: true,
    authPerMinute: max,
    loginFailuresBeforeDelay,
    publicPerMinute: 1000,
    writesPerMinute: 1000,
    mailPerClientPerHour: 1000,
  },
});

async function hit(t: TestApp, remoteAddress: string, forwardedFor?: string): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/register',
    remoteAddress,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    payload: {},
  });
  return res.statusCode;
}

describe('behind a trusted proxy (TRUST_PROXY=10.0.0.1)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { config: { ...limits(3), trustProxy: ['10.0.0.1'] } });
  });
  after(() => t.close());

  test('limits count per client address from X-Forwarded-For', async () => {
    for (let i = 0; i < 3; i++) assert.equal(await hit(t, '10.0.0.1', '203.0.113.5'), 400);
    assert.equal(await hit(t, '10.0.0.1', '203.0.113.5'), 429, 'client A is limited');
    assert.equal(await hit(t, '10.0.0.1', '203.0.113.6'), 400, 'client B behind the same proxy is not');
    // The proxy appends the real peer: a client-supplied first entry does not help.
    assert.equal(await hit(t, '10.0.0.1', '198.51.100.99, 203.0.113.5'), 429);
  });

  test('an untrusted peer sending X-Forwarded-For is limited by its own address', async () => {
    for (let i = 0; i < 3; i++) assert.equal(await hit(t, '192.0.2.50', `198.51.100.${i}`), 400);
    assert.equal(await hit(t, '192.0.2.50', '198.51.100.200'), 429);
    assert.equal(await hit(t, '192.0.2.50'), 429);
  });
});

describe('without TRUST_PROXY', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { config: limits(2) });
  });
  after(() => t.close());

  test('X-Forwarded-For is ignored: rotating it changes nothing', async () => {
    assert.equal(await hit(t, '192.0.2.60', '203.0.113.1'), 400);
    assert.equal(await hit(t, '192.0.2.60', '203.0.113.2'), 400);
    assert.equal(await hit(t, '192.0.2.60', '203.0.113.3'), 429);
    assert.equal(await hit(t, '192.0.2.61', '203.0.113.3'), 400, 'another peer has its own budget');
  });
});

describe('login throttling behind a trusted proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { config: { ...limits(1000, 2), trustProxy: ['10.0.0.1'] } });
  });
  after(() => t.close());

  const login = async (forwardedFor: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': forwardedFor },
        payload: { email: 'victim@example.test', password: 'not the password at all' },
      })
    ).statusCode;

  test('failures from one client delay that client, not others behind the same proxy', async () => {
    assert.equal(await login('203.0.113.20'), 401);
    assert.equal(await login('203.0.113.20'), 401);
    assert.equal(await login('203.0.113.20'), 429);
    assert.equal(await login('203.0.113.21'), 401, 'another client is not locked out by the first');
  });
});
