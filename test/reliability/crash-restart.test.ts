import assert from 'node:assert/strict';
import { test } from 'node:test';
import { betScenario } from '../helpers/crash-bets.js';
import { crashLoop } from '../helpers/crash.js';

// A few kills here; test/long/ runs the same loop at least 50 times.
test('SIGKILL at random moments loses no acknowledged write or notice; restarts migrate, serve and resume the workers', {
  timeout: 180_000,
}, async (t) => {
  const scenario = await betScenario();
  try {
    const report = await crashLoop({ rounds: 3, scenario });
    t.diagnostic(JSON.stringify({ ...report, ...scenario.stats, duplicates: scenario.duplicates() }));
    assert.ok(report.acknowledged > 0, 'writes were acknowledged between kills');
  } finally {
    await scenario.stop();
  }
});
