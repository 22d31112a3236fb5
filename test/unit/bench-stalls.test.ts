// The benchmark's stall figures: the service's metrics text parsed, two
// scrapes around a scenario differenced, instances and runs merged, and the
// report's column.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdown, type Measured, medianMeasured, type Report } from '../../bench/lib/report.js';
import { checkpointWaitText, mergeStalls, parseStallMetrics, stallsBetween, stallText } from '../../bench/lib/stalls.js';
import { Metrics } from '../../src/metrics.js';

const before = `# HELP event_loop_stalls_total Stretches over 20 ms
# TYPE event_loop_stalls_total counter
event_loop_stalls_total{cause="gc"} 2
event_loop_stalls_total{cause="job:record publication"} 1
# TYPE event_loop_stall_longest_seconds gauge
event_loop_stall_longest_seconds{cause="gc"} 0.031
event_loop_delay_max_seconds 0.05
event_loop_delay_p99_seconds 0.0101
db_checkpoint_waits_total 3
db_checkpoint_wait_seconds_total 0.25
nodejs_gc_duration_seconds_count{kind="minor"} 900
nodejs_gc_duration_seconds_count{kind="major"} 4
nodejs_gc_duration_seconds_sum{kind="major"} 0.04
http_requests_total{method="GET",route="/",status="200"} 10
`;

const after = `event_loop_stalls_total{cause="gc"} 3
event_loop_stalls_total{cause="job:record publication"} 4
event_loop_stalls_total{cause="requests"} 1
event_loop_stall_seconds_total{cause="gc"} 0.2
event_loop_stall_longest_seconds{cause="gc"} 0.025
event_loop_stall_longest_seconds{cause="job:record publication"} 0.667
event_loop_stall_longest_seconds{cause="requests"} 0.021
event_loop_delay_max_seconds 0.668
event_loop_delay_p99_seconds 0.0203
db_checkpoint_waits_total 15
db_checkpoint_wait_seconds_total 1.09
nodejs_gc_duration_seconds_count{kind="major"} 7
nodejs_gc_duration_seconds_sum{kind="major"} 0.07
`;

test('a scrape is parsed into counts, longest stalls by cause and the loop delay', () => {
  assert.deepEqual(parseStallMetrics(before), {
    counts: { gc: 2, 'job:record publication': 1 },
    longestS: { gc: 0.031 },
    delayMaxS: 0.05,
    delayP99S: 0.0101,
    checkpointWaits: 3,
    checkpointWaitS: 0.25,
    fullGcs: 4,
    fullGcS: 0.04,
  });
  assert.deepEqual(parseStallMetrics('event_loop_stalls_total{cause="job:a \\"b\\""} 1\n').counts, { 'job:a "b"': 1 });
  assert.deepEqual(parseStallMetrics('no metrics here'), {
    counts: {},
    longestS: {},
    delayMaxS: null,
    delayP99S: null,
    checkpointWaits: 0,
    checkpointWaitS: 0,
    fullGcs: 0,
    fullGcS: 0,
  });
});

test("a scenario's stalls: the counters differenced, the longest from the later scrape", () => {
  const s = stallsBetween(parseStallMetrics(before), parseStallMetrics(after));
  assert.equal(s.cause, 'job:record publication');
  assert.equal(Math.round(s.longestMs), 667);
  assert.equal(s.count, 5);
  assert.deepEqual(s.byCause, { gc: 1, 'job:record publication': 3, requests: 1 });
  assert.equal(s.delayMaxMs, 668);
  assert.equal(stallText(s), '667 ms (job:record publication), 5 stalls; 3 full GCs');
  assert.equal(Math.round(s.fullGcMs ?? 0), 30);
  assert.equal(s.checkpointWaits, 12);
  assert.equal(Math.round(s.checkpointWaitMs ?? 0), 840);
  assert.equal(checkpointWaitText(s), 'writes waited for a checkpoint 12 times, 840 ms in all');
  const none = stallsBetween(
    parseStallMetrics(after),
    parseStallMetrics('event_loop_delay_max_seconds 0.012\nnodejs_gc_duration_seconds_count{kind="major"} 7\n'),
  );
  assert.equal(none.count, 0);
  assert.equal(stallText(none), 'none over 20 ms');
  assert.equal(checkpointWaitText(none), null);
});

test('instances merged: the longest of any, counts summed', () => {
  const a = { longestMs: 30, cause: 'gc', count: 1, byCause: { gc: 1 }, delayMaxMs: 31, delayP99Ms: 10, checkpointWaits: 2, checkpointWaitMs: 70 };
  const b = { longestMs: 90, cause: 'requests', count: 2, byCause: { requests: 1, gc: 1 }, delayMaxMs: null, delayP99Ms: null };
  assert.deepEqual(mergeStalls([a, b]), {
    longestMs: 90,
    cause: 'requests',
    count: 3,
    byCause: { gc: 2, requests: 1 },
    delayMaxMs: 31,
    delayP99Ms: 10,
    checkpointWaits: 2,
    checkpointWaitMs: 70,
    fullGcs: 0,
    fullGcMs: 0,
  });
  assert.equal(mergeStalls([]), null);
  assert.equal(
    mergeStalls([
      { ...a, fullGcs: 2, fullGcMs: 20 },
      { ...b, fullGcs: 1, fullGcMs: 9 },
    ])?.fullGcs,
    3,
  );
  assert.equal(stallText({ ...b, count: 0, cause: null, fullGcs: 1 }), 'none over 20 ms; 1 full GC');
});

test("what the service's own metrics expose parses", async () => {
  const metrics = new Metrics({ stalls: true });
  try {
    metrics.stalls.inc({ cause: 'job:x' });
    metrics.observeCheckpoints({ waits: 2, waitedMs: 500 });
    const parsed = parseStallMetrics(await metrics.scrape());
    assert.equal(parsed.counts['job:x'], 1);
    assert.equal(parsed.checkpointWaits, 2);
    assert.equal(parsed.checkpointWaitS, 0.5);
    // The running totals grow: the counters add the growth, not the totals again.
    metrics.observeCheckpoints({ waits: 5, waitedMs: 800 });
    const later = parseStallMetrics(await metrics.scrape());
    assert.equal(later.checkpointWaits, 5);
    assert.equal(later.checkpointWaitS, 0.8);
    assert.equal(typeof parsed.delayMaxS, 'number');
    assert.equal(typeof parsed.delayP99S, 'number');
  } finally {
    await metrics.stop();
  }
});

test("the service's process metrics carry the collections the benchmark reads, by kind", async () => {
  // Whether a full collection happens during a test is V8's choice; the metric it is counted under is not.
  const metrics = new Metrics({ processMetrics: true });
  try {
    const text = await metrics.scrape();
    assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
    assert.match(text, /kind, one of major, minor/);
  } finally {
    await metrics.stop();
  }
});

const measured = (stalls: Measured['stalls']): Measured => ({
  perSecond: 100,
  requestsPerSecond: 100,
  p50Ms: 1,
  p90Ms: 2,
  p99Ms: 3,
  maxMs: 4,
  ratio: 0.5,
  baselineRps: 200,
  ratioBare: null,
  bareBaselineRps: null,
  peakRssMb: 100,
  cpu: null,
  logBytesPerRequest: null,
  statusCounts: {},
  non2xx: 0,
  errors: 0,
  ...(stalls === undefined ? {} : { stalls }),
});

test('the runs of a scenario keep the longest stall of any run; the report has it in a column', () => {
  const runs = [
    measured({ longestMs: 40, cause: 'gc', count: 1, byCause: { gc: 1 }, delayMaxMs: 41, delayP99Ms: 10 }),
    measured({
      longestMs: 650,
      cause: 'job:record publication',
      count: 1,
      byCause: { 'job:record publication': 1 },
      delayMaxMs: 651,
      delayP99Ms: 11,
    }),
    measured(null),
  ];
  const m = medianMeasured(runs);
  assert.equal(m.stalls?.longestMs, 650);
  assert.equal(m.stalls?.count, 2);
  const report = {
    meta: {
      dialect: 'sqlite',
      size: 'full',
      connections: 64,
      durationS: 10,
      runs: 3,
      startedAt: 'now',
      node: 'v22',
      os: 'linux',
      cpus: 2,
      cpuModel: 'x',
    },
    baseline: { requestsPerSecond: 200, p50Ms: 1, p99Ms: 2, runs: [200] },
    results: [{ key: 'home', label: 'GET /', kind: 'read', unit: 'request', status: 'ok', target: null, pass: null, measured: m, runs }],
    loginMix: { status: 'skipped', target: null, pass: null },
    memory: { peakRssMb: 100, targetMb: 512, pass: true },
  } as unknown as Report;
  const md = markdown(report);
  assert.match(md, /\| longest stall \|/);
  assert.match(md, /\| 650 ms \(job:record publication\), 2 stalls \|/);
  assert.equal(medianMeasured([measured(undefined)]).stalls, undefined);
});
