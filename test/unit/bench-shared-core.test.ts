// The benchmark's check of where the service ran and what it used: the parse
// of /proc's stat line, the report's flag on runs that shared the load
// generator's core, and its CPU columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdown, type Measured, type Report, resultLine, type ScenarioResult } from '../../bench/lib/report.js';
import { cpuTicksOf, lastCpuOf } from '../../bench/lib/server.js';
import { TARGETS } from '../../bench/lib/targets.js';

const fields = (cpu: number) => ['S', ...Array.from({ length: 35 }, (_, i) => String(i + 4)), String(cpu), '0', '0'].join(' ');

test("the last CPU is field 39, counted from the command name's last parenthesis", () => {
  assert.equal(lastCpuOf(`1234 (node) ${fields(1)}`), 1);
  assert.equal(lastCpuOf(`1234 (a) b (c d) ${fields(7)}\n`), 7, 'a command name with spaces and parentheses');
  assert.equal(lastCpuOf('1234 (node) S 1 2'), null, 'a short line tells nothing');
});

test("CPU time is utime + stime, fields 14 and 15, counted from the command name's last parenthesis", () => {
  // Fields 3..: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime.
  const line = (name: string) => `42 (${name}) S 1 1 1 0 -1 4194560 10 0 0 0 250 37 0 0 20 0 1 0 100`;
  assert.equal(cpuTicksOf(line('node')), 287);
  assert.equal(cpuTicksOf(line('a) (b c')), 287, 'a command name with spaces and parentheses');
  assert.equal(cpuTicksOf('42 (node) S 1'), null, 'a short line tells nothing');
});

function report(sharedCorePct: number | null, cpu: Measured['cpu'] = null): Report {
  const price: ScenarioResult = {
    key: 'price',
    label: 'GET /price/AAPL',
    unit: 'request',
    status: 'ok',
    target: TARGETS.price,
    pass: false,
    measured: {
      perSecond: 400,
      requestsPerSecond: 400,
      p50Ms: 1,
      p99Ms: 12,
      ratio: 0.4,
      baselineRps: 1000,
      peakRssMb: 150,
      sharedCorePct,
      cpu,
      statusCounts: {},
      errors: 0,
    },
  };
  return {
    meta: {
      startedAt: '',
      finishedAt: '',
      node: 'v20',
      os: 'Linux',
      cpus: 2,
      cpuModel: 'x',
      dialect: 'sqlite',
      size: 'full',
      connections: 64,
      durationS: 10,
      quick: false,
      targetConditions: true,
    },
    baseline: { requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2 },
    results: [price],
    loginMix: { status: 'not available', target: TARGETS.leaderboardDuringLogins, pass: null },
    memory: { peakRssMb: 150, targetMb: 300, pass: true },
  } as unknown as Report;
}

test("a run mostly on the load generator's core is flagged in the report and on the console", () => {
  const r = report(83);
  assert.match(markdown(r), /The service ran on the load generator's core for most of: GET \/price\/AAPL \(83 %\)/);
  assert.match(resultLine(r.results[0]!), /on the load generator's core 83 % of the time/);
});

test('a run on its own core, or one /proc could not follow, is not flagged', () => {
  for (const pct of [12, null]) {
    const r = report(pct);
    assert.doesNotMatch(markdown(r), /load generator's core/);
    assert.doesNotMatch(resultLine(r.results[0]!), /load generator's core/);
  }
});

test('the CPU columns say which side was the limit, and are left empty where /proc could not tell', () => {
  const busy = report(3, { serverThreadPct: 97.4, serverPct: 104, loadGeneratorPct: 41, serverMicrosPerUnit: 2435, baselineMicrosPerRequest: 13.94 });
  const row = markdown(busy)
    .split('\n')
    .find((l) => l.startsWith('| GET /price/AAPL'))!;
  assert.match(row, /\| 97 %, 2,435 µs a request \(hello world 13.9\) \| 41 % \|$/);
  assert.match(markdown(busy), /CPU columns: % of one core over the run/);
  assert.match(resultLine(busy.results[0]!), /\[CPU: service thread 97 %, 2,435 µs a request \(hello world 13.9\); load generator 41 %\]/);
  const unknown = report(null, null);
  assert.match(
    markdown(unknown)
      .split('\n')
      .find((l) => l.startsWith('| GET /price/AAPL'))!,
    /\| — \| — \|$/,
  );
  assert.doesNotMatch(markdown(unknown), /CPU columns/);
  assert.doesNotMatch(resultLine(unknown.results[0]!), /CPU:/);
});
