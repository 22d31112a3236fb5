// The benchmark's figures: CPU times from /proc and from the shell's `times`,
// the medians of the runs, and the report's columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdown, type Measured, medianMeasured, type Report, resultLine, type ScenarioResult } from '../../bench/lib/report.js';
import { cpuTicksOf, parseTimes } from '../../bench/lib/server.js';
import { describeTarget, meets, targetsFor } from '../../bench/lib/targets.js';

test("CPU time is utime + stime, fields 14 and 15, counted from the command name's last parenthesis", () => {
  // Fields 3..: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime.
  const line = (name: string) => `42 (${name}) S 1 1 1 0 -1 4194560 10 0 0 0 250 37 0 0 20 0 1 0 100`;
  assert.equal(cpuTicksOf(line('node')), 287);
  assert.equal(cpuTicksOf(line('a) (b c')), 287, 'a command name with spaces and parentheses');
  assert.equal(cpuTicksOf('42 (node) S 1'), null, 'a short line tells nothing');
});

test("a command's CPU is its children's line of the shell's `times`, in dash's and bash's formats", () => {
  assert.equal(parseTimes('output\n0m0.001000s 0m0.002000s\n0m3.250000s 1m0.750000s\n'), 64);
  assert.equal(parseTimes('0m0.004s 0m0.000s\n0m1.500s 0m0.500s'), 2);
  assert.equal(parseTimes('no times here'), null);
});

function measured(perSecond: number, p99Ms: number, extra: Partial<Measured> = {}): Measured {
  return {
    perSecond,
    requestsPerSecond: perSecond,
    p50Ms: 1,
    p90Ms: 2,
    p99Ms,
    maxMs: 50,
    ratio: perSecond / 1000,
    baselineRps: 1000,
    ratioBare: perSecond / 3000,
    bareBaselineRps: 3000,
    peakRssMb: 150,
    cpu: { serverThreadPct: 97.4, serverPct: 104, loadGeneratorPct: 41, serverMicrosPerUnit: 2435, baselineMicrosPerRequest: 13.94 },
    logBytesPerRequest: 400,
    statusCounts: {},
    non2xx: 0,
    errors: 0,
    ...extra,
  };
}

test('a scenario’s figures are the medians of its runs, figure by figure; failed answers add up; the peak is the largest', () => {
  const m = medianMeasured([
    measured(900, 30, { non2xx: 1, peakRssMb: 120 }),
    measured(500, 10, { peakRssMb: 250 }),
    measured(700, 20, { errors: 2, statusCounts: { '200': 5, '500': 1 } }),
  ]);
  assert.equal(m.perSecond, 700);
  assert.equal(m.p99Ms, 20);
  assert.equal(m.ratio, 0.7);
  assert.equal(m.non2xx, 1);
  assert.equal(m.errors, 2);
  assert.equal(m.peakRssMb, 250);
  assert.deepEqual(m.statusCounts, { '200': 5, '500': 1 });
  assert.equal(m.cpu?.serverThreadPct, 97.4);
  assert.equal(medianMeasured([measured(1, 1, { ratioPgbenchN: 0.2 }), measured(1, 1, { ratioPgbenchN: 0.4 })]).ratioPgbenchN, 0.30000000000000004);
});

test("targets: issue 35's table per database, the reads 0.05× lower on PostgreSQL, the tail bounded by the round's p50 and hello", () => {
  const sqlite = targetsFor('sqlite');
  const pg = targetsFor('postgres');
  assert.deepEqual(sqlite.health, { minRatio: 0.8, minBareRatio: 0.45, stallBound: true });
  assert.deepEqual(pg.health, { minRatio: 0.75, minBareRatio: 0.4, stallBound: true });
  assert.deepEqual(sqlite.price, { minRatio: 0.75, minBareRatio: 0.4, stallBound: true });
  assert.deepEqual(sqlite.publicRead, sqlite.leaderboard);
  assert.deepEqual(pg.portfolio, { minRatio: 0.4, minBareRatio: 0.17, stallBound: true });
  assert.deepEqual(sqlite.deepRead, { minRatio: 0.25, minBareRatio: 0.12, stallBound: true });
  assert.deepEqual(sqlite.betPairs, { minRatio: 0.15, stallBound: true });
  assert.deepEqual(pg.betPairs, { minRatio: 0.25, against: 'pgbench-N', stallBound: true });
  assert.equal(describeTarget(pg.betPairs), '≥ 0.25× pgbench -N, p99 ≤ max(3× p50, 2× hello p99)');
  assert.equal(describeTarget(sqlite.health), '≥ 0.80×, ≥ 0.45× no-log, p99 ≤ max(3× p50, 2× hello p99)');
  const judged = { ratio: 0.85, ratioBare: 0.5, p50Ms: 2, baselineP99Ms: 10 };
  assert.equal(meets(sqlite.health, judged, 20), true, 'p99 at 2× the hello world');
  assert.equal(meets(sqlite.health, judged, 20.5), false, 'p99 beyond both bounds: a stall');
  assert.equal(meets(sqlite.health, { ...judged, p50Ms: 8 }, 24), true, 'p99 at 3× its own p50');
  assert.equal(meets(sqlite.health, { ...judged, ratioBare: 0.44 }, 5), false, 'the no-log ratio too');
  assert.equal(meets(sqlite.health, { ratio: 0.85, ratioBare: 0.5 }, 1), false, 'no p50: the tail cannot be judged');
  assert.equal(meets(pg.betPairs, { ratio: 0.01, ratioPgbenchN: 0.3, p50Ms: 100, baselineP99Ms: 5 }, 250), true);
  assert.equal(meets(pg.betPairs, { ratio: 0.9, ratioPgbenchN: null, p50Ms: 1 }, 1), false, 'no anchor: not met');
  assert.equal(meets(targetsFor('sqlite').leaderboardDuringLogins, { ratio: 0.1 }, 26), false, 'the leaderboard during logins keeps its 25 ms');
});

function report(dialect: 'sqlite' | 'postgres', result: ScenarioResult): Report {
  return {
    meta: {
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '',
      node: 'v20',
      os: 'Linux',
      cpus: 2,
      cpuModel: 'x',
      dialect,
      size: 'full',
      connections: 64,
      durationS: 10,
      runs: 3,
      quick: false,
      only: null,
      targetConditions: true,
      dataset: { reused: 'x' },
      pinning: { server: 0, loadGenerator: 1 },
      service: { command: 'node --max-old-space-size=256 dist/main.js', env: { NODE_ENV: 'production', JWT_SECRET: '[redacted]' }, logs: 'a pipe' },
    },
    baseline: { requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2, runs: [990, 1000, 1010] },
    bareBaseline: { requestsPerSecond: 3000, p50Ms: 1, p99Ms: 2, runs: [3000] },
    results: [result],
    loginMix: { status: 'skipped', detail: 'not in --only', target: targetsFor(dialect).leaderboardDuringLogins, pass: null },
    memory: { peakRssMb: 150, targetMb: 300, pass: true },
  };
}

test('the report says how the service ran, and its columns say which side was the limit', () => {
  const runs = [measured(400, 12), measured(420, 11), measured(380, 13)];
  const r: ScenarioResult = {
    key: 'price',
    label: 'GET /price/AAPL',
    kind: 'read',
    unit: 'request',
    status: 'ok',
    target: targetsFor('sqlite').price,
    pass: false,
    measured: medianMeasured(runs),
    runs,
  };
  const md = markdown(report('sqlite', r));
  assert.match(md, /median of 3 runs/);
  assert.match(md, /`node --max-old-space-size=256 dist\/main\.js` with NODE_ENV=production JWT_SECRET=\[redacted\]/);
  assert.match(md, /servers \(and pgbench\) on core 0, wrk on core 1/);
  const row = md.split('\n').find((l) => l.startsWith('| GET /price/AAPL'))!;
  assert.match(
    row,
    /\| 400 req\/s \| 1\.0 \| 12\.0 \| 0\.40× \| 0\.13× \| ≥ 0\.75×, ≥ 0\.40× no-log, p99 ≤ max\(3× p50, 2× hello p99\) \| FAIL \| 400 \/ 420 \/ 380 \|/,
  );
  assert.match(row, /\| 97 %, 2,435 µs a request \(hello world 13\.9\) \| 41 % \| — \|$/);
  assert.match(resultLine(r), /\[CPU: service thread 97 %, 2,435 µs a request \(hello world 13\.9\); wrk 41 %\]/);
});

test('on PostgreSQL a write shows its ratio to pgbench -N beside the hello worlds', () => {
  const m = measured(300, 30, { ratioPgbenchN: 0.043, pgbenchNTps: 7000 });
  const r: ScenarioResult = {
    key: 'bet-pairs',
    label: 'POST /bet/open + /bet/close, 64+ traders',
    kind: 'write',
    unit: 'pair',
    status: 'ok',
    target: targetsFor('postgres').betPairs,
    pass: false,
    measured: m,
    runs: [m],
  };
  const md = markdown({
    ...report('postgres', r),
    anchors: {
      status: 'ok',
      clients: 10,
      scale: 10,
      pgbenchN: { tps: 7000, latencyMs: 1.4, runs: [] },
      pgbenchS: { tps: 30000, latencyMs: 0.3, runs: [] },
    },
  });
  assert.match(md, /\| × pgbench -N \|/);
  assert.match(md, /\| 0\.30× \| 0\.10× \| 0\.04× \| ≥ 0\.25× pgbench -N, p99 ≤ max\(3× p50, 2× hello p99\) \| FAIL \|/);
  assert.match(md, /`pgbench -N` 7,000 tps/);
  assert.match(resultLine(r), /0\.04× pgbench -N/);
});
