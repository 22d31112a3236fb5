// The periodic job and its runner: one run at a time, again at once when the
// job asks, the interval otherwise; stop() aborts the run's signal and waits
// for it; every run counted and timed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { Metrics } from '../../src/metrics.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The job's timers never hold the process (the server does in the app): the test holds it while it waits. */
async function holdingTheProcess<T>(wait: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, 1_000);
  try {
    return await wait;
  } finally {
    clearInterval(hold);
  }
}

test('runOnce() during a run shares that run', async () => {
  let runs = 0;
  let release!: () => void;
  const job = new PeriodicJob({
    name: 'shared',
    intervalMs: 60_000,
    run: async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
      return runs;
    },
  });
  const a = job.runOnce();
  const b = job.runOnce();
  release();
  assert.deepEqual(await Promise.all([a, b]), [1, 1]);
  assert.equal(runs, 1);
  const c = job.runOnce();
  release();
  assert.equal(await c, 2, 'a call after the run ended starts another');
});

test('start() runs at once and again at once while again() says so, then waits the interval; stop() aborts and drains', async () => {
  const results = [5, 5, 1];
  let runs = 0;
  let aborted: boolean | null = null;
  let inLast!: () => void;
  const reachedLast = new Promise<void>((r) => (inLast = r));
  const job = new PeriodicJob({
    name: 'backlog',
    intervalMs: 60_000,
    run: async (signal) => {
      const result = results[runs++] ?? 0;
      if (runs === 3) {
        inLast();
        await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
        aborted = signal.aborted;
      }
      return result;
    },
    again: (n) => n >= 5,
  });
  job.start();
  await holdingTheProcess(reachedLast);
  await job.stop();
  assert.equal(runs, 3, 'two full batches ran back to back, then the third run');
  assert.equal(aborted, true, 'the run in progress saw the stop and finished before stop() returned');
});

test('a failed run is logged and the job carries on after its interval', async () => {
  const errors: string[] = [];
  let runs = 0;
  let second!: () => void;
  const ranTwice = new Promise<void>((r) => (second = r));
  const job = new PeriodicJob(
    {
      name: 'flaky',
      intervalMs: 5,
      run: async () => {
        if (++runs === 1) throw new Error('boom');
        second();
      },
    },
    { ...quiet, error: (_obj, msg) => errors.push(msg) },
  );
  job.start();
  await holdingTheProcess(ranTwice);
  await job.stop();
  assert.deepEqual(errors, ['flaky run failed']);
});

test('the runner counts and times every run by job and outcome', async () => {
  const metrics = new Metrics();
  const runner = new JobRunner({ log: quiet, metrics });
  const ok = runner.add({ name: 'fine', intervalMs: 60_000, run: async () => 1 });
  const bad = runner.add({
    name: 'broken',
    intervalMs: 60_000,
    run: async () => {
      throw new Error('no');
    },
  });
  await ok.runOnce();
  await ok.runOnce();
  await assert.rejects(bad.runOnce());
  const text = await metrics.registry.metrics();
  assert.match(text, /job_runs_total\{job="fine",outcome="ok"\} 2/);
  assert.match(text, /job_runs_total\{job="broken",outcome="failed"\} 1/);
  assert.match(text, /job_run_duration_seconds_count\{job="fine"\} 2/);
  await runner.stop();
});
