// Times every SQL statement during concurrent open+close pairs via inject.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { BENCH_PASSWORD, emailOf } from '../bench/lib/roles.js';

fs.copyFileSync('data/bench-full.db', '/tmp/w.db');
for (const s of ['-wal', '-shm']) fs.rmSync('/tmp/w.db' + s, { force: true });
const config = loadConfig({ DATABASE_URL: 'sqlite:/tmp/w.db', RATE_LIMITS: 'off', WORKERS: 'off', LOG_LEVEL: 'warn', NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(64) });
const database = openDatabase(config.database);
const sqlite = database.sqlite!;
if (process.env.CACHE_KB) sqlite.pragma(`cache_size = -${process.env.CACHE_KB}`);
const times = new Map<string, { n: number; ms: number }>();
const origPrepare = sqlite.prepare.bind(sqlite);
(sqlite as any).prepare = (text: string) => {
  const st = origPrepare(text);
  for (const m of ['run', 'all', 'get', 'iterate']) {
    const f = (st as any)[m].bind(st);
    (st as any)[m] = (...a: unknown[]) => {
      const t = performance.now();
      try { return f(...a); } finally {
        const e = times.get(text) ?? { n: 0, ms: 0 }; e.n++; e.ms += performance.now() - t; times.set(text, e);
      }
    };
  }
  return st;
};
const app = await buildApp(config, { database, logger: false });
const login = await app.inject({ method: 'POST', url: '/login', payload: { email: emailOf(Number(process.env.ROLE_ID ?? 5)), password: BENCH_PASSWORD } });
const cookie = login.headers['set-cookie']!.toString().split(';')[0];
const PAIRS = Number(process.argv[2] ?? 2000), CONC = 64;
{ const mu = process.memoryUsage(); console.log('mem0', Object.fromEntries(Object.entries(mu).map(([k, v]) => [k, Math.round(v / 1048576)]))); }
times.clear();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let next = 0;
await Promise.all(Array.from({ length: CONC }, async () => {
  while (next++ < PAIRS) {
    const o = await app.inject({ method: 'POST', url: '/bet/open', headers: { cookie }, payload: { ticker: 'AAPL', direction: 'LONG' } });
    const id = o.json().bet_id;
    const c = await app.inject({ method: 'POST', url: '/bet/close', headers: { cookie }, payload: { bet_id: id } });
    if (c.statusCode !== 200) throw new Error(c.body);
  }
}));
const wall = performance.now() - t0;
const mu = process.memoryUsage(); console.log('mem', Object.fromEntries(Object.entries(mu).map(([k, v]) => [k, Math.round(v / 1048576)])));
const cpu = process.cpuUsage(cpu0);
console.log(`${PAIRS} pairs in ${wall.toFixed(0)} ms: ${(PAIRS / wall * 1000).toFixed(0)} pairs/s; cpu user ${(cpu.user / 1000).toFixed(0)} sys ${(cpu.system / 1000).toFixed(0)} ms`);
let total = 0;
for (const [, v] of times) total += v.ms;
console.log(`SQL total ${total.toFixed(0)} ms`);
for (const [k, v] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30)) console.log(`${v.ms.toFixed(0).padStart(6)} ms ${String(v.n).padStart(6)}× ${(v.ms / v.n * 1000).toFixed(0).padStart(6)}µs  ${k.slice(0, 150)}`);
await app.close();
await database.close();
