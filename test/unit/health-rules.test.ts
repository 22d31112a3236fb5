import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FreshValue } from '../../src/lib/fresh-value.js';
import { healthOf } from '../../src/services/health.js';
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

test('FreshValue: one load shared by concurrent callers, reused while fresh, reloaded when old', async () => {
  let now = 0;
  let loads = 0;
  let release!: () => void;
  const fresh = new FreshValue(
    async () => {
      loads++;
      await new Promise<void>((r) => (release = r));
      return loads;
    },
    1000,
    () => now,
  );
  const a = fresh.get();
  const b = fresh.get();
  release();
  assert.deepEqual(await Promise.all([a, b]), [1, 1]);
  now = 999;
  assert.equal(await fresh.get(), 1);
  now = 1000;
  const c = fresh.get();
  release();
  assert.equal(await c, 2);
  assert.equal(loads, 2);
});

test('FreshValue: a failed load is not kept', async () => {
  let fail = true;
  const fresh = new FreshValue(async () => {
    if (fail) throw new Error('down');
    return 'up';
  }, 60_000);
  await assert.rejects(fresh.get(), /down/);
  fail = false;
  assert.equal(await fresh.get(), 'up');
});
