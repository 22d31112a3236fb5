// Where the service's resident memory comes from, step by step: the service
// starts as `npm start` runs it (the start script's flags) on a fresh copy of
// the generated data (so its first start publishes yesterday's record, as the
// benchmark's does), then logs in 64 users 16 at a time, then takes each read
// below at full load for a while, then has the trader with 10,000 followers
// open and close a bet five times, the outbox delivering each opening's
// notices before the next. After each step: resident memory (VmRSS),
// its peak so far (VmHWM), and the largest JavaScript heap seen during the
// step (the metrics port, sampled every 250 ms).
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/memory-steps.ts [--duration 15]
import { parseArgs } from 'node:util';
import { copyFullData } from './lib/full-data-copy.js';
import { BENCH_PASSWORD, emailOf, FIRST_ORDINARY_ID, ROLES } from './lib/roles.js';
import { freePort, memoryOf, serviceCommand, startServer } from './lib/server.js';
import { measureFanOut, outboxQueue } from './lib/fanout.js';
import { findWrk, runWrk, WRK_MISSING } from './lib/wrk.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '15' } } });
const durationS = Number(values.duration);
const wrk = findWrk();
if (!wrk) throw new Error(WRK_MISSING);

const copy = copyFullData('bench-memory');
const metricsPort = await freePort();
const service = serviceCommand();
const server = await startServer(
  'service',
  service.entry,
  { ...copy.env, METRICS_PORT: String(metricsPort) },
  { nodeArgs: service.nodeArgs, cpu: 0 },
);

let heapMb = 0;
const sampler = setInterval(() => {
  fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    .then((r) => r.text())
    .then((text) => {
      heapMb = Math.max(heapMb, Number(/^nodejs_heap_size_total_bytes (\d+)/m.exec(text)?.[1] ?? 0) / 1048576);
    })
    .catch(() => undefined);
}, 250);
const report = (step: string, extra = '') => {
  const m = memoryOf(server.pid);
  console.log(
    `${step.padEnd(36)} RSS ${m.rssMb.toFixed(0).padStart(4)} MiB   peak ${m.peakMb.toFixed(0).padStart(4)} MiB   heap ≤ ${heapMb.toFixed(0).padStart(4)} MB  ${extra}`,
  );
  heapMb = 0;
};

async function logIn(id: number): Promise<string> {
  const res = await fetch(`${server.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: emailOf(id), password: BENCH_PASSWORD }),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`login of user ${id}: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

try {
  await new Promise((r) => setTimeout(r, 5_000));
  report('started (yesterday published)');
  const ids = Array.from({ length: 64 }, (_, i) => FIRST_ORDINARY_ID + i);
  for (let i = 0; i < ids.length; i += 16) await Promise.all(ids.slice(i, i + 16).map(logIn));
  report('64 logins, 16 at a time');
  const reads: Array<[string, string | undefined]> = [
    ['/feed', await logIn(ROLES.feed.id)],
    ['/history?limit=100&offset=5000', await logIn(ROLES.history.id)],
    ['/portfolio', await logIn(ROLES.portfolio.id)],
    ['/leaderboard', undefined],
    [`/user/${ROLES.demo.id}/public`, undefined],
  ];
  for (const [p, cookie] of reads) {
    const r = await runWrk({
      binary: wrk,
      url: server.url,
      plan: { kind: 'single', request: { method: 'GET', path: p }, cookie },
      connections: 64,
      durationS,
    });
    report(`GET ${p}, ${durationS} s`, `${Math.round(r.rps).toLocaleString('en-US')} req/s`);
  }
  const queue = outboxQueue(`sqlite:${copy.database}`);
  try {
    const [step] = await measureFanOut(server.url, [{ followers: 10_000, cookie: await logIn(ROLES.fanOutLarge.id) }], 5, queue, 120);
    const delivered = step!.delivered;
    report(
      'fan-out: 5 opens at 10,000 followers',
      delivered?.seconds
        ? `the last ${delivered.pendingAtStart.toLocaleString('en-US')} notices delivered in ${delivered.seconds.toFixed(1)} s`
        : (step!.failed ?? 'notices left'),
    );
  } finally {
    await queue.close();
  }
} finally {
  clearInterval(sampler);
  await server.stop();
  copy.remove();
}
