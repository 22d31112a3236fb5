import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crashLoop } from '../helpers/crash.js';

// A few kills here; test/long/ runs the same loop at least 50 times.
test('SIGKILL at random moments loses no acknowledged write; restarts migrate and serve', async (t) => {
  const report = await crashLoop({ rounds: 3 });
  t.diagnostic(JSON.stringify(report));
  assert.ok(report.acknowledged > 0, 'writes were acknowledged between kills');
});
