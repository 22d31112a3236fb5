// Folding benchmark reports into the table docs/performance.md shows:
// medians per scenario, verdicts on the medians against each database's targets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Measured, Report, ScenarioResult } from '../../bench/lib/report.js';
import { isWholeRun, median, summaryTable } from '../../bench/lib/summary.js';
import { targetsFor } from '../../bench/lib/targets.js';

type Cpu = Measured['cpu'];

function measuredOf(ratio: number, p99Ms: number, rss: number, cpu: Cpu = null, extra: Partial<Measured> = {}): Measured {
  return {
    perSecond: ratio * 1000,
    requestsPerSecond: ratio * 1000,
    p50Ms: 5,
    p90Ms: 8,
    p99Ms,
    maxMs: 40,
    ratio,
    baselineRps: 1000,
    ratioBare: ratio / 2,
    bareBaselineRps: 2000,
    baselineP99Ms: 7,
    peakRssMb: rss,
    cpu,
    logBytesPerRequest: 400,
    statusCounts: {},
    non2xx: 0,
    errors: 0,
    ...extra,
  };
}

function run(dialect: 'sqlite' | 'postgres', ratio: number, p99Ms: number, rss: number, cpu: Cpu = null): Report {
  const t = targetsFor(dialect);
  const leaderboard: ScenarioResult = {
    key: 'leaderboard',
    label: 'GET /leaderboard',
    kind: 'read',
    unit: 'request',
    status: 'ok',
    target: t.leaderboard,
    pass: null,
    measured: measuredOf(ratio, p99Ms, rss, cpu),
  };
  const pairs: ScenarioResult = {
    key: 'bet-pairs',
    label: 'POST /bet/open + /bet/close, 64+ traders',
    kind: 'write',
    unit: 'pair',
    status: 'ok',
    target: t.betPairs,
    pass: null,
    measured: measuredOf(ratio / 10, 30, rss, cpu, dialect === 'postgres' ? { ratioPgbenchN: ratio / 2, pgbenchNTps: 7000 } : {}),
  };
  // A scenario whose probe failed: not measured, and a fail.
  const feed: ScenarioResult = { key: 'feed', label: 'GET /feed', kind: 'read', unit: 'request', status: 'failing', target: t.deepRead, pass: false };
  return {
    meta: { dialect, runs: 3, only: null, startedAt: '' },
    baseline: { requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2, runs: [1000] },
    bareBaseline: { requestsPerSecond: 3000, p50Ms: 1, p99Ms: 2, runs: [3000] },
    results: [leaderboard, pairs, feed],
    loginMix: { status: 'failing', target: t.leaderboardDuringLogins, pass: false },
    memory: { peakRssMb: rss, targetMb: 300, pass: rss <= 300 },
    fanOut: {
      status: 'ok',
      opensEach: 5,
      steps: [
        { followers: 0, openMs: [2, 3, 4], medianOpenMs: 3, delivered: null },
        { followers: 1000, openMs: [9], medianOpenMs: 9, delivered: null },
      ],
    },
  } as unknown as Report;
}

test('median of odd and even counts', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('the table quotes medians, judges them against each database’s targets, and keeps the largest peak RSS', () => {
  const table = summaryTable([
    { title: 'SQLite', reports: [run('sqlite', 0.9, 9, 120), run('sqlite', 0.5, 30, 310), run('sqlite', 0.8, 12, 130)] },
    { title: 'PostgreSQL', reports: [] },
  ]);
  assert.match(table, /SQLite \(median of 3 reports, each median of 3 runs\)/);
  assert.doesNotMatch(table, /PostgreSQL/);
  const bound = 'p99 ≤ max\\(3× p50, 2× hello p99\\)';
  assert.match(
    table,
    new RegExp(`\\| GET /leaderboard \\| ≥ 0\\.75×, ≥ 0\\.40× no-log, ${bound} \\| 800 req/s, 0\\.80× \\(no-log 0\\.40×\\), p99 12\\.0 ms ✓ \\|`),
  );
  assert.match(table, /\| GET \/feed \| .* \| failing \|/);
  assert.match(table, /310 MiB ✗/);
  assert.match(table, /fan-out: .* \| \(reported\) \| 0: 3\.0 ms, 1,000: 9\.0 ms \|/);
});

test('PostgreSQL’s column judges its writes against pgbench -N, beside SQLite’s against the hello world', () => {
  const table = summaryTable([
    { title: 'SQLite', reports: [run('sqlite', 0.9, 9, 120)] },
    { title: 'PostgreSQL', reports: [run('postgres', 0.6, 30, 200)] },
  ]);
  const row = table.split('\n').find((l) => l.startsWith('| POST /bet/open'))!;
  const bound = 'p99 ≤ max\\(3× p50, 2× hello p99\\)';
  assert.match(row, new RegExp(`\\| ≥ 0\\.15×, ${bound} \\| 90 pairs/s, 0\\.09× \\(no-log 0\\.04×\\), p99 30\\.0 ms ✗ \\|`));
  assert.match(
    row,
    new RegExp(`\\| ≥ 0\\.25× pgbench -N, ${bound} \\| 60 pairs/s, 0\\.30× pgbench -N \\(0\\.06× hello\\), p99 30\\.0 ms ✗ \\|$`),
    'p99 30 ms beyond 3× its p50 of 5 ms',
  );
  assert.match(
    table,
    new RegExp(
      `\\| GET /leaderboard \\| ≥ 0\\.75×, ≥ 0\\.40× no-log, ${bound} \\| .* \\| ≥ 0\\.70×, ≥ 0\\.35× no-log, ${bound} \\| 600 req/s, 0\\.60× .* ✗ \\|`,
    ),
  );
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
      reports: [
        run('sqlite', 0.6, 3, 120, cpu(80, 15.5, 13.2, 100)),
        run('sqlite', 0.7, 3, 120, cpu(78, 16.3, 12.0, 99)),
        run('sqlite', 0.5, 3, 120, cpu(90, 17, 14, 97)),
      ],
    },
    { title: 'PostgreSQL', reports: [run('postgres', 0.7, 3, 120)] },
  ]);
  assert.match(table, /\| GET \/leaderboard \| 80 %, 16\.3 µs a request \(13\.2\); 99 % \| — \|/);
});

test('a summary folds whole runs only: a --only run is told by its meta, or by its skipped login mix in older reports', () => {
  const t = targetsFor('sqlite');
  const withMeta = (only: string[] | null | undefined, loginMix: Report['loginMix']): Report =>
    ({ ...run('sqlite', 0.6, 3, 120), meta: { only }, loginMix }) as unknown as Report;
  const measuredMix = { status: 'ok', target: t.leaderboardDuringLogins, pass: true } as unknown as Report['loginMix'];
  const skippedMix = { status: 'skipped', detail: 'not in --only', target: t.leaderboardDuringLogins, pass: null } as Report['loginMix'];
  assert.equal(isWholeRun(withMeta(null, measuredMix)), true);
  assert.equal(isWholeRun(withMeta(['health'], skippedMix)), false);
  assert.equal(isWholeRun(withMeta(['login-mix'], measuredMix)), false);
  assert.equal(isWholeRun(withMeta(undefined, measuredMix)), true);
  assert.equal(isWholeRun(withMeta(undefined, skippedMix)), false);
});
