// Event-loop stalls: the attribution of a stall to what ran (a pure
// function), and a job that blocks the loop for 50 ms seen in the metrics,
// charged to that job.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { Metrics } from '../../src/metrics.js';
import { attributeStall } from '../../src/ops/stalls.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const stall = { start: 100, end: 160 };

test('a stall overlapping no job run and no GC is charged to the requests', () => {
  assert.equal(attributeStall(stall, [{ name: 'settlement', start: 0, end: 90 }], [{ start: 170, end: 180 }]), 'requests');
});

test('a stall overlapping a job run is charged to that job; of two, to the one overlapping it most', () => {
  assert.equal(attributeStall(stall, [{ name: 'settlement', start: 50, end: 110 }], []), 'job:settlement');
  const spans = [
    { name: 'settlement', start: 50, end: 110 },
    { name: 'record publication', start: 105, end: 400 },
  ];
  assert.equal(attributeStall(stall, spans, []), 'job:record publication');
});

test('GC is the cause when its pauses fill half the stall or more, and overlap it at least as much as any job run', () => {
  assert.equal(attributeStall(stall, [], [{ start: 120, end: 150 }]), 'gc');
  assert.equal(attributeStall(stall, [], [{ start: 120, end: 125 }]), 'requests', 'a scavenge within a turn of requests is not the stall');
  const gcs = [
    { start: 100, end: 120 },
    { start: 130, end: 150 },
  ];
  assert.equal(attributeStall(stall, [{ name: 'outbox', start: 110, end: 140 }], gcs), 'gc');
  assert.equal(attributeStall(stall, [{ name: 'outbox', start: 0, end: 1_000 }], gcs), 'job:outbox');
});

test('a full collection pausing within a stall is its cause, however short the pause, unless a job run overlaps it', () => {
  // The turn around a full collection's pause is slowed by V8's marking and sweeping threads on the same core.
  assert.equal(attributeStall(stall, [], [{ start: 140, end: 147, full: true }]), 'gc');
  assert.equal(attributeStall(stall, [], [{ start: 140, end: 147 }]), 'requests', 'a scavenge as short is not');
  assert.equal(attributeStall(stall, [{ name: 'outbox', start: 0, end: 1_000 }], [{ start: 140, end: 147, full: true }]), 'job:outbox');
  assert.equal(attributeStall(stall, [], [{ start: 160, end: 170, full: true }]), 'requests', 'one that only touches it is not');
});

test('intervals that only touch the stall do not count', () => {
  assert.equal(attributeStall(stall, [{ name: 'outbox', start: 160, end: 200 }], [{ start: 90, end: 100 }]), 'requests');
});

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning: the loop runs nothing else meanwhile
  }
}

const sample = (text: string, name: string, cause: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{cause="${cause}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

test('a job that blocks the loop for 50 ms shows up as a stall charged to it, and the scrape resets the longest', async () => {
  const metrics = new Metrics({ stalls: true });
  try {
    const runner = new JobRunner({ log: quiet, metrics });
    const job = runner.add({
      name: 'blocker',
      intervalMs: 60_000,
      run: async () => {
        await new Promise((r) => setTimeout(r, 30));
        block(50);
      },
    });
    await job.runOnce();
    // Past the time the monitor waits for GC entries before it attributes a stall.
    await new Promise((r) => setTimeout(r, 120));
    const text = await metrics.scrape();
    assert.ok((sample(text, 'event_loop_stalls_total', 'job:blocker') ?? 0) >= 1, text);
    const longest = sample(text, 'event_loop_stall_longest_seconds', 'job:blocker') ?? 0;
    assert.ok(longest >= 0.04 && longest < 1, `longest ${longest}`);
    assert.ok(Number(/^event_loop_delay_max_seconds (\S+)$/m.exec(text)?.[1]) >= 0.04, text);
    const again = await metrics.scrape();
    assert.equal(sample(again, 'event_loop_stall_longest_seconds', 'job:blocker'), undefined);
    assert.ok((sample(again, 'event_loop_stalls_total', 'job:blocker') ?? 0) >= 1);
  } finally {
    await metrics.stop();
  }
});
