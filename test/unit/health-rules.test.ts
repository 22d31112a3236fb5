import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { AppContext } from '../../src/context.js';
import { FakeClock } from '../../src/lib/clock.js';
import { healthMonitor, healthOf } from '../../src/services/health.js';
import { FAILING_FOR_MS, ProviderStatus } from '../../src/services/provider-status.js';

test('healthOf: ok, or degraded with every reason', () => {
  assert.deepEqual(healthOf(true, []), { status: 'ok', version: '1.0.0', database: 'ok' });
  assert.deepEqual(healthOf(false, ['price', 'chat']), {
    status: 'degraded',
    version: '1.0.0',
    database: 'unreachable',
    reasons: ['database unreachable', 'price provider failing', 'chat provider failing'],
  });
  assert.deepEqual(healthOf(true, ['chat']).reasons, ['chat provider failing']);
});

test('ProviderStatus: failing after a failure, for a minute at most, until a success', () => {
  const s = new ProviderStatus('price');
  assert.equal(s.failing(0), false);
  s.failed(1000);
  assert.equal(s.failing(1000), true);
  assert.equal(s.failing(1000 + FAILING_FOR_MS - 1), true);
  assert.equal(s.failing(1000 + FAILING_FOR_MS), false);
  s.failed(5000);
  s.succeeded();
  assert.equal(s.failing(5001), false);
});

function monitor(healthCacheMs: number) {
  const sqlite = new SQLite(':memory:');
  const db = new Kysely<Record<string, never>>({ dialect: new SqliteDialect({ database: sqlite }) });
  let probes = 0;
  const clock = new FakeClock();
  const ctx = {
    db,
    clock,
    config: { healthCacheMs },
    metrics: { databaseUp: { set: () => probes++ } },
  } as unknown as AppContext;
  const monotonic = {
    t: 1000,
    now() {
      return this.t;
    },
  };
  const provider = new ProviderStatus('price');
  return { health: healthMonitor(ctx, [provider], monotonic), db, monotonic, provider, clock, probes: () => probes };
}

test('health monitor: one probe shared by concurrent callers, reused for the cache period, then probed again', async () => {
  const m = monitor(1000);
  try {
    const [a, b] = await Promise.all([m.health.get(), m.health.get()]);
    assert.equal(m.probes(), 1);
    assert.equal(a, b);
    assert.deepEqual(a, { status: 'ok', version: '1.0.0', database: 'ok' });
    m.provider.failed(m.clock.now());
    m.monotonic.t += 1000;
    assert.equal((await m.health.get()).status, 'ok', 'still the cached answer');
    assert.equal(m.probes(), 1);
    m.monotonic.t += 1;
    assert.deepEqual((await m.health.get()).reasons, ['price provider failing']);
    assert.equal(m.probes(), 2);
  } finally {
    await m.db.destroy();
  }
});

test('health monitor: a cache period of 0 probes on every call, concurrent callers still sharing one', async () => {
  const m = monitor(0);
  try {
    await Promise.all([m.health.get(), m.health.get()]);
    assert.equal(m.probes(), 1);
    await m.health.get();
    await m.health.get();
    assert.equal(m.probes(), 3);
    await m.db.destroy();
    assert.deepEqual(await m.health.get(), { status: 'degraded', version: '1.0.0', database: 'unreachable', reasons: ['database unreachable'] });
  } finally {
    await m.db.destroy();
  }
});
