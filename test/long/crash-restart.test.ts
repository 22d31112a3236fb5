import assert from 'node:assert/strict';
import { test } from 'node:test';
import { betScenario } from '../helpers/crash-bets.js';
import { crashLoop } from '../helpers/crash.js';

test('60 SIGKILLs at random moments (start-up and mid-write) lose no acknowledged write or notice', { timeout: 30 * 60_000 }, async (t) => {
  const scenario = await betScenario();
  try {
    const report = await crashLoop({ rounds: 60, scenario });
    t.diagnostic(JSON.stringify({ ...report, ...scenario.stats, duplicates: scenario.duplicates() }));
    assert.ok(report.acknowledged > 0);
  } finally {
    await scenario.stop();
  }
});
