// Writes and reads together, in process, on a copy of the full data (SQLite):
// open + close pairs by concurrent traders through the service's own
// functions, beside a few readers of a history page, each pausing 2 ms
// between reads. Prints the pairs a second, how busy the event loop was, the
// group commit's batches and the checkpoint's waits, the share of the time
// the writes waited for a checkpoint and for the WAL's syncs, and the reads'
// latency: what a read pays for the writes going on beside it.
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/mixed-load.ts [--seconds 8] [--writers 64] [--readers 8]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Checkpointer } from '../src/db/checkpointer.js';
import { WalSync } from '../src/db/wal-sync.js';
import { copyFullData } from './lib/full-data-copy.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    writers: { type: 'string', default: '64' },
    readers: { type: 'string', default: '8' },
  },
});

// The time writes spend waiting: for a checkpoint to catch up, and for the WAL's syncs.
const waited = { catchUp: 0, sync: 0, syncs: 0 };
function timed(proto: Record<string, (...a: unknown[]) => Promise<unknown>>, method: string, add: (ms: number) => void): void {
  const real = proto[method]!;
  proto[method] = async function (this: unknown, ...a: unknown[]) {
    const start = performance.now();
    try {
      return await real.apply(this, a);
    } finally {
      add(performance.now() - start);
    }
  };
}
timed(Checkpointer.prototype as never, 'catchUp', (ms) => {
  waited.catchUp += ms;
});
timed(WalSync.prototype as never, 'sync', (ms) => {
  waited.sync += ms;
  waited.syncs += 1;
});

const copy = copyFullData('mixed-load');
const { loadConfig } = await import('../src/config.js');
const { createContext } = await import('../src/create-context.js');
const { openBet, closeBet, history } = await import('../src/services/bets.js');
const ctx = await createContext(loadConfig({ ...copy.env, WORKERS: 'off', LOG_LEVEL: 'silent' }));
// Ordinary traders and readers spread over the population, as the benchmark's are.
const traders = Array.from({ length: Number(values.writers) }, (_, i) => 1000 + i * 1400);
const readers = Array.from({ length: Number(values.readers) }, (_, i) => 3000 + i * 7000);

let stop = false;
let pairs = 0;
const latencies: number[] = [];
const writer = async (user: number) => {
  while (!stop) {
    const opened = await openBet(ctx, user, { ticker: 'AAPL', direction: 'LONG' });
    await closeBet(ctx, user, opened.bet_id);
    pairs++;
  }
};
const reader = async (user: number) => {
  while (!stop) {
    const start = performance.now();
    await history(ctx, user, 20, 0);
    latencies.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
const run = async (ms: number) => {
  stop = false;
  const all = [...traders.map(writer), ...readers.map(reader)];
  await new Promise((resolve) => setTimeout(resolve, ms));
  stop = true;
  await Promise.all(all);
};

try {
  await run(2000);
  pairs = 0;
  latencies.length = 0;
  Object.assign(waited, { catchUp: 0, sync: 0, syncs: 0 });
  const commits = { ...ctx.database.groupCommitStats! };
  const checkpoints = { ...ctx.database.checkpointStats! };
  const loop = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run(Number(values.seconds) * 1000);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(loop).utilization;
  const batches = ctx.database.groupCommitStats!.batches - commits.batches;
  const transactions = ctx.database.groupCommitStats!.transactions - commits.transactions;
  const share = (ms: number) => `${((ms / 1000 / seconds) * 100).toFixed(0)} %`;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.floor(p * (latencies.length - 1))]!.toFixed(1);
  console.log(
    `${traders.length} writers: ${(pairs / seconds).toFixed(0)} open + close pairs a second; event loop ${(busy * 100).toFixed(0)} % busy, ` +
      `process CPU ${(used.user / 1e4 / seconds) | 0} % user, ${(used.system / 1e4 / seconds) | 0} % system`,
  );
  console.log(
    `group commit: ${batches} batches, ${(transactions / batches).toFixed(1)} transactions each; checkpoints ${ctx.database.checkpointStats!.runs - checkpoints.runs}, ` +
      `writes waited for one ${ctx.database.checkpointStats!.waits - checkpoints.waits} times (${share(waited.catchUp)} of the time); ` +
      `WAL syncs ${share(waited.sync)} of the time (${(waited.sync / waited.syncs).toFixed(2)} ms each)`,
  );
  console.log(
    `${readers.length} readers (history, 20 bets): ${latencies.length} reads, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
  );
} finally {
  await ctx.close();
  copy.remove();
}
