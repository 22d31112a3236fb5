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

test("targets: the issue's table per database, PostgreSQL's writes judged against pgbench -N", () => {
  const sqlite = targetsFor('sqlite');
  const pg = targetsFor('postgres');
  assert.deepEqual(sqlite.health, { minRatio: 0.8, maxP99Ms: 25 });
  assert.deepEqual(pg.price, { minRatio: 0.5, maxP99Ms: 40 });
  assert.deepEqual(sqlite.portfolio, { minRatio: 0.45, maxP99Ms: 25 });
  assert.deepEqual(pg.deepRead, { minRatio: 0.25, maxP99Ms: 40 });
  assert.deepEqual(sqlite.betPairs, { minRatio: 0.1 });
  assert.deepEqual(pg.betPairs, { minRatio: 0.25, against: 'pgbench-N' });
  assert.equal(describeTarget(pg.betPairs), '≥ 0.25× pgbench -N');
  assert.equal(meets(pg.betPairs, { ratio: 0.01, ratioPgbenchN: 0.3 }, 500), true);
  assert.equal(meets(pg.betPairs, { ratio: 0.9, ratioPgbenchN: null }, 1), false, 'no anchor: not met');
  assert.equal(meets(sqlite.health, { ratio: 0.85 }, 26), false, 'p99 above 25 ms');
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
  assert.match(row, /\| 400 req\/s \| 1\.0 \| 12\.0 \| 0\.40× \| 0\.13× \| ≥ 0\.60×, p99 ≤ 25 ms \| FAIL \| 400 \/ 420 \/ 380 \|/);
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
  assert.match(md, /\| 0\.30× \| 0\.10× \| 0\.04× \| ≥ 0\.25× pgbench -N \| FAIL \|/);
  assert.match(md, /`pgbench -N` 7,000 tps/);
  assert.match(resultLine(r), /0\.04× pgbench -N/);
});
