// Folding repeated benchmark runs: medians per endpoint, verdicts on the medians.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Report, ScenarioResult } from '../../bench/lib/report.js';
import { isWholeRun, median, summaryTable } from '../../bench/lib/summary.js';
import { TARGETS } from '../../bench/lib/targets.js';

type Cpu = NonNullable<ScenarioResult['measured']>['cpu'];

function run(ratio: number, p99Ms: number, rss: number, cpu: Cpu = null): Report {
  const leaderboard: ScenarioResult = {
    key: 'leaderboard',
    label: 'GET /leaderboard',
    unit: 'request',
    status: 'ok',
    target: TARGETS.leaderboard,
    pass: null,
    measured: {
      perSecond: ratio * 1000,
      requestsPerSecond: ratio * 1000,
      p50Ms: 1,
      p99Ms,
      ratio,
      baselineRps: 1000,
      peakRssMb: rss,
      cpu,
      statusCounts: {},
      errors: 0,
    },
  };
  // A scenario whose probe failed: not measured, and a fail.
  const feed: ScenarioResult = { key: 'feed', label: 'GET /feed', unit: 'request', status: 'failing', target: TARGETS.deepRead, pass: false };
  return {
    baseline: { requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2 },
    results: [leaderboard, feed],
    loginMix: { status: 'failing', target: TARGETS.leaderboardDuringLogins, pass: false },
    memory: { peakRssMb: rss, targetMb: 300, pass: rss < 300 },
  } as unknown as Report;
}

test('median of odd and even counts', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('the table quotes medians, judges them against the target, and keeps the largest peak RSS', () => {
  const table = summaryTable([
    { title: 'SQLite', reports: [run(0.9, 9, 120), run(0.5, 30, 310), run(0.8, 12, 130)] },
    { title: 'PostgreSQL', reports: [] },
  ]);
  assert.match(table, /SQLite \(median of 3\)/);
  assert.doesNotMatch(table, /PostgreSQL/);
  assert.match(table, /\| GET \/leaderboard \| ≥ 0\.70×, p99 ≤ 15 ms \| 800 req\/s, 0\.80×, p99 12 ms ✓ \|/);
  assert.match(table, /\| GET \/feed \| .* \| failing \|/);
  assert.match(table, /310 MiB ✗/);
});

test('the CPU table quotes the medians of where the CPU went, and a dash where a run could not tell', () => {
  const cpu = (thread: number, micros: number, hello: number, loader: number): Cpu => ({
    serverThreadPct: thread,
    serverPct: thread + 5,
    loadGeneratorPct: loader,
    serverMicrosPerUnit: micros,
    baselineMicrosPerRequest: hello,
  });
  const table = summaryTable([
    {
      title: 'SQLite',
      reports: [run(0.6, 3, 120, cpu(80, 15.5, 13.2, 100)), run(0.7, 3, 120, cpu(78, 16.3, 12.0, 99)), run(0.5, 3, 120, cpu(90, 17, 14, 97))],
    },
    { title: 'PostgreSQL', reports: [run(0.7, 3, 120)] },
  ]);
  assert.match(table, /\| GET \/leaderboard \| 80 %, 16\.3 µs a request \(13\.2\); 99 % \| — \|/);
});

test('a summary folds whole runs only: a --only run is told by its meta, or by its skipped login mix in older reports', () => {
  const withMeta = (only: string[] | null | undefined, loginMix: Report['loginMix']): Report =>
    ({ ...run(0.6, 3, 120), meta: { only }, loginMix }) as unknown as Report;
  const measuredMix = { status: 'ok', target: TARGETS.leaderboardDuringLogins, pass: true } as unknown as Report['loginMix'];
  const skippedMix = { status: 'skipped', detail: 'not in --only', target: TARGETS.leaderboardDuringLogins, pass: null } as Report['loginMix'];
  assert.equal(isWholeRun(withMeta(null, measuredMix)), true);
  assert.equal(isWholeRun(withMeta(['health'], skippedMix)), false);
  assert.equal(isWholeRun(withMeta(['login-mix'], measuredMix)), false);
  assert.equal(isWholeRun(withMeta(undefined, measuredMix)), true);
  assert.equal(isWholeRun(withMeta(undefined, skippedMix)), false);
});
