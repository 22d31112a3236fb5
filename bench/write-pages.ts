// The pages an open and a close write, by b-tree: each page a transaction
// changes is written to the WAL at its commit and copied back into the
// database by a checkpoint, so on SQLite this is what a write costs the disk
// (and the checkpoint worker) beyond its statements. The service is built in
// this process (buildApp, the benchmark's production configuration, background
// work off) on a fresh copy of the full data; ordinary traders of the
// benchmark's bet-pairs scenario open and close one bet at a time (each
// trader's second pair counted), and the
// frames each request's commit added to the WAL are read from the -wal file
// and named by the b-tree their page belongs to (SQLite's dbstat table).
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/write-pages.ts [--pairs 20]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { buildInProcess, copyFullData } from './lib/full-data-copy.js';
import { PRESETS } from './lib/presets.js';
import { BENCH_PASSWORD, emailOf } from './lib/roles.js';
import { tradersOf } from './lib/scenarios.js';

const { values } = parseArgs({ options: { pairs: { type: 'string', default: '20' } } });
const pairs = Number(values.pairs);
const copy = copyFullData('bench-write-pages');
const walFile = `${copy.database}-wal`;
const app = await buildInProcess(copy);

type Frame = { page: number };
/** The frames of the WAL's current generation (those whose salts match its header), in order. */
function walFrames(): Frame[] {
  const b = fs.readFileSync(walFile);
  if (b.length < 32) return [];
  const pageSize = b.readUInt32BE(8);
  const [s1, s2] = [b.readUInt32BE(16), b.readUInt32BE(20)];
  const frames: Frame[] = [];
  for (let off = 32; off + 24 + pageSize <= b.length; off += 24 + pageSize) {
    if (b.readUInt32BE(off + 8) !== s1 || b.readUInt32BE(off + 12) !== s2) break;
    frames.push({ page: b.readUInt32BE(off) });
  }
  return frames;
}

const written = { open: [] as number[][], close: [] as number[][] };
let skipped = 0;
const counted: number[] = [];
try {
  await app.ready();
  const { traders } = tradersOf(PRESETS.full, 64);
  const request = async (cookie: string, url: string, payload: object) => {
    const r = await app.inject({ method: 'POST', url, headers: { cookie }, payload });
    if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
    return JSON.parse(r.body) as { bet_id: number };
  };
  /** The pages of the frames fn's commit added; null when a checkpoint restarted the WAL meanwhile. */
  const pagesOf = async <T>(fn: () => Promise<T>): Promise<[T, number[] | null]> => {
    const before = walFrames().length;
    const value = await fn();
    const after = walFrames();
    return [value, after.length >= before ? after.slice(before).map((f) => f.page) : null];
  };
  // Each trader's first pair is not counted: it writes what a started service writes once, and it
  // splits the leaves of the generated indexes around the trader's entries, which the generator
  // built full; the benchmark's traders write many times, so their later writes are the ones that count.
  for (const id of traders.slice(0, pairs)) {
    const login = await app.inject({ method: 'POST', url: '/login', payload: { email: emailOf(id), password: BENCH_PASSWORD } });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const first = await request(cookie, '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
    await request(cookie, '/bet/close', { bet_id: first.bet_id });
    // A checkpoint that restarts the WAL during a request hides its frames: that pair is made again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const [opened, openPages] = await pagesOf(() => request(cookie, '/bet/open', { ticker: 'AAPL', direction: 'LONG' }));
      const [, closePages] = await pagesOf(() => request(cookie, '/bet/close', { bet_id: opened.bet_id }));
      if (openPages && closePages) {
        written.open.push(openPages);
        written.close.push(closePages);
        counted.push(id);
        break;
      }
      skipped += 1;
    }
  }
} finally {
  await app.close();
}
const db = new SQLite(copy.database, { readonly: true });
const owner = new Map<number, string>();
const followersOf = db.prepare('select count(*) as n from follows where followed_id = ?');
const followers = counted.reduce((sum, id) => sum + (followersOf.get(id) as { n: number }).n, 0);
for (const r of db.prepare('select name, pageno from dbstat').iterate() as Iterable<{ name: string; pageno: number }>) owner.set(r.pageno, r.name);
db.close();
copy.remove();
console.log(
  `${written.open.length} ordinary traders' open + close (the benchmark's first traders, ${(followers / (counted.length || 1)).toFixed(1)} followers each on average), one at a time (${skipped} made again: a checkpoint restarted the WAL meanwhile), pages a request by b-tree:\n`,
);
for (const [kind, all] of Object.entries(written)) {
  const by = new Map<string, number>();
  for (const pages of all) for (const p of pages) by.set(owner.get(p) ?? 'freed since', (by.get(owner.get(p) ?? 'freed since') ?? 0) + 1);
  const n = all.length || 1;
  const total = [...by.values()].reduce((a, b) => a + b, 0);
  console.log(`| ${kind}: ${(total / n).toFixed(1)} pages a request | pages |\n|---|---:|`);
  for (const [name, c] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`| ${name} | ${(c / n).toFixed(1)} |`);
  console.log('');
}
