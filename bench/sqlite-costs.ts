// Where SQLite's share of a request goes, on a copy of the benchmark's full
// data (npm run bench:generate -- --size full): what reading a page of 100
// finished bets costs by how its rows reach JavaScript, and the time of each
// statement of an open + close, one pair at a time, through the service's own
// functions (no HTTP); then the same pairs by many traders at once, as the
// benchmark's bet-pairs scenario runs them, with what their group commits
// cost: the transactions a batch, the WAL bytes a pair, the syncs' time and
// their share of the wall time, and how busy the event loop was.
// docs/performance.md "Where the time goes" quotes it.
//
//   node --import tsx bench/sqlite-costs.ts [--pairs 1000] [--traders 64] [--seconds 10]
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { BET_VIEW_COLUMNS } from '../src/db/bet-columns.js';
import { rowMaker } from '../src/db/statement-cache.js';
import { copyFullData, type FullDataCopy } from './lib/full-data-copy.js';
import { ROLES } from './lib/roles.js';

function perCall(fn: () => unknown, n = 3000): number {
  for (let i = 0; i < 300; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

function pageReads(file: string): void {
  const db = new SQLite(file, { readonly: true });
  db.pragma('cache_size = -32768');
  const user = ROLES.history.id;
  const where = 'from bets where user_id = ? and history_pos > ? and history_pos <= ?';
  const args = [user, 5000, 5100] as const;
  const all = db.prepare(`select * ${where}`);
  const raw = db.prepare(`select * ${where}`).raw(true);
  const names = raw.columns().map((c) => c.name);
  const make = rowMaker(names);
  if (!make) throw new Error('the bets table has columns rowMaker leaves to better-sqlite3');
  const view = db.prepare(`select ${BET_VIEW_COLUMNS.join(', ')} ${where}`).raw(true);
  const ids = db.prepare(`select id ${where}`).raw(true);
  const sqlOnly = db.prepare(`select sum(length(ticker) + entry_price + coalesce(exit_price, 0)) ${where}`);
  const rows = [
    ['SQLite alone (the seek and 100 lookups, one value back)', perCall(() => sqlOnly.get(...args))],
    ['23 columns as better-sqlite3 row objects', perCall(() => all.all(...args))],
    ['23 columns as arrays, made into objects by a compiled literal', perCall(() => (raw.all(...args) as unknown[][]).map(make))],
    ['the ids alone as arrays (one value a row)', perCall(() => ids.all(...args))],
    [`the view's ${BET_VIEW_COLUMNS.length} columns as arrays (BET_VIEW_COLUMNS)`, perCall(() => view.all(...args))],
  ] as const;
  console.log(`A page of 100 finished bets (user ${user}, places 5,001–5,100), µs a read:\n`);
  console.log('| how | µs |\n|---|---:|');
  for (const [how, us] of rows) console.log(`| ${how} | ${us.toFixed(0)} |`);
  db.close();
}

/** Ordinary traders spread over the population, as the benchmark's are. */
const traderIds = (count: number) => Array.from({ length: count }, (_, i) => 1000 + i * 1400);

/** The service's context on the copy, background work off and no log lines, with the functions an open and a close run. */
async function serviceOn(copy: FullDataCopy) {
  const { loadConfig } = await import('../src/config.js');
  const { createContext } = await import('../src/create-context.js');
  const { openBet, closeBet } = await import('../src/services/bets.js');
  const ctx = await createContext(loadConfig({ ...copy.env, WORKERS: 'off', LOG_LEVEL: 'silent' }));
  return { ctx, openBet, closeBet };
}

async function pairs(copy: FullDataCopy, n: number): Promise<void> {
  const stats = new Map<string, { calls: number; ns: bigint }>();
  const proto = SQLite.prototype as unknown as { prepare: (text: string) => SQLite.Statement };
  const prepare = proto.prepare;
  proto.prepare = function (this: SQLite.Database, text: string) {
    const stmt = prepare.call(this, text) as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const method of ['all', 'run', 'get']) {
      const real = stmt[method]!.bind(stmt);
      stmt[method] = (...a: unknown[]) => {
        const start = process.hrtime.bigint();
        try {
          return real(...a);
        } finally {
          const s = stats.get(text) ?? { calls: 0, ns: 0n };
          s.calls += 1;
          s.ns += process.hrtime.bigint() - start;
          stats.set(text, s);
        }
      };
    }
    return stmt as unknown as SQLite.Statement;
  };
  const { ctx, openBet, closeBet } = await serviceOn(copy);
  const traders = traderIds(64);
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const user = traders[i % traders.length]!;
      const opened = await openBet(ctx, user, { ticker: 'AAPL', direction: 'LONG' });
      await closeBet(ctx, user, opened.bet_id);
    }
  };
  await run(200);
  stats.clear();
  const cpu = process.cpuUsage();
  await run(n);
  const used = process.cpuUsage(cpu);
  await ctx.close();
  // The statements' timing stays out of what runs next.
  proto.prepare = prepare;
  let total = 0n;
  for (const s of stats.values()) total += s.ns;
  console.log(
    `\nOpen + close, ${n} pairs one at a time: ${((used.user + used.system) / n).toFixed(0)} µs of CPU a pair, ${(Number(total / BigInt(n)) / 1000).toFixed(0)} µs of it in SQLite statements:\n`,
  );
  console.log('| statement | µs a pair | runs a pair |\n|---|---:|---:|');
  for (const [text, s] of [...stats].sort((a, b) => Number(b[1].ns - a[1].ns)).slice(0, 12)) {
    const sql = text.replace(/\s+/g, ' ').replace(/"/g, '');
    console.log(`| \`${sql.length > 90 ? `${sql.slice(0, 90)}…` : sql}\` | ${(Number(s.ns) / n / 1000).toFixed(0)} | ${s.calls / n} |`);
  }
}

/** Bytes this process has handed to write(2) and its kind, from /proc (Linux). */
const bytesWritten = () => Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);

/** Times every FileHandle#datasync: the group committer's WAL sync (src/db/wal-sync.ts) is one. */
async function timedSyncs(dir: string): Promise<{ count: number; ns: bigint }> {
  const probe = await fs.promises.open(`${dir}/sync-probe`, 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: (this: unknown) => Promise<void> };
  await probe.close();
  const real = proto.datasync;
  const syncs = { count: 0, ns: 0n };
  proto.datasync = async function (this: unknown) {
    const start = process.hrtime.bigint();
    try {
      await real.call(this);
    } finally {
      syncs.count += 1;
      syncs.ns += process.hrtime.bigint() - start;
    }
  };
  return syncs;
}

async function concurrentPairs(copy: FullDataCopy, traderCount: number, seconds: number): Promise<void> {
  const syncs = await timedSyncs(copy.database.replace(/\/[^/]+$/, ''));
  const { ctx, openBet, closeBet } = await serviceOn(copy);
  const traders = traderIds(traderCount);
  const load = async (ms: number) => {
    let stop = false;
    let done = 0;
    const trade = async (user: number) => {
      while (!stop) {
        const opened = await openBet(ctx, user, { ticker: 'AAPL', direction: 'LONG' });
        await closeBet(ctx, user, opened.bet_id);
        done += 1;
      }
    };
    const running = traders.map(trade);
    await new Promise((resolve) => setTimeout(resolve, ms));
    stop = true;
    await Promise.all(running);
    return done;
  };
  await load(2000);
  const committed = { ...ctx.database.groupCommitStats! };
  const checkpoints = { ...ctx.database.checkpointStats! };
  syncs.count = 0;
  syncs.ns = 0n;
  const written = bytesWritten();
  const loop = performance.eventLoopUtilization();
  const start = performance.now();
  const done = await load(seconds * 1000);
  const wall = (performance.now() - start) / 1000;
  const busy = performance.eventLoopUtilization(loop).utilization;
  const stats = ctx.database.groupCommitStats!;
  const batches = stats.batches - committed.batches;
  const syncMs = Number(syncs.ns) / 1e6;
  console.log(`\nOpen + close by ${traderCount} traders at once for ${seconds} s (each trader's next pair once the last is answered):\n`);
  console.log('| measure | value |\n|---|---:|');
  console.log(`| pairs a second | ${(done / wall).toFixed(0)} |`);
  console.log(`| event loop busy | ${(busy * 100).toFixed(0)} % |`);
  console.log(`| transactions a batch (one COMMIT and one sync) | ${((stats.transactions - committed.transactions) / batches).toFixed(1)} |`);
  console.log(`| bytes written a pair (the WAL's frames, mostly) | ${((bytesWritten() - written) / done / 1024).toFixed(0)} KiB |`);
  console.log(`| a sync | ${(syncMs / syncs.count).toFixed(1)} ms |`);
  console.log(`| share of the wall time spent in syncs | ${((syncMs / 1000 / wall) * 100).toFixed(0)} % |`);
  const held = ctx.database.checkpointStats!;
  console.log(
    `| writes held for a checkpoint | ${held.waits - checkpoints.waits} times, ${(((held.waitedMs - checkpoints.waitedMs) / 1000 / wall) * 100).toFixed(0)} % of the wall time |`,
  );
  await ctx.close();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { pairs: { type: 'string', default: '1000' }, traders: { type: 'string', default: '64' }, seconds: { type: 'string', default: '10' } },
  });
  const copy = copyFullData('sqlite-costs');
  try {
    pageReads(copy.database);
    await pairs(copy, Number(values.pairs));
    await concurrentPairs(copy, Number(values.traders), Number(values.seconds));
  } finally {
    copy.remove();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
