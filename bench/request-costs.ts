// What single requests cost, one at a time, on the full data: the service is
// built in this process (buildApp, the production configuration of the
// benchmark, background work off) on a fresh copy of the generated database,
// one user logs in, and each path is requested `--calls` times through
// app.inject after three untimed calls. Prints the wall and CPU time a request,
// and the longest the event loop was held at once meanwhile (an upper bound:
// app.inject's own handling of an answer and the next call's start can share
// one turn of the loop).
// For the slow requests a load run hides (a stall of the event loop shows here
// as its own length); the benchmark's scenarios measure throughput. `{i}` in a
// path becomes the call's number, so that each call asks something new where
// answers are shared (`/leaderboard?period=365d&min_trades={i}`). With
// --statements, also the time of each SQLite statement a request ran (its
// text, how many a request, µs a request), measured inside the service, where
// a statement costs more than run alone in a loop (bench/sqlite-costs.ts).
//
//   npm run bench:generate -- --size full    (once)
//   node --import tsx bench/request-costs.ts [--user EMAIL] [--calls 20] [--statements] PATH…
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { buildInProcess, copyFullData } from './lib/full-data-copy.js';
import { BENCH_PASSWORD } from './lib/roles.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    user: { type: 'string', default: 'demo.trader@bench.test' },
    calls: { type: 'string', default: '20' },
    statements: { type: 'boolean', default: false },
  },
});
if (positionals.length === 0) throw new Error('name at least one path, for example /me/standing');
const calls = Number(values.calls);

/** Time spent in each statement's calls while `timing` is on, by its text. */
const spent = new Map<string, { calls: number; ms: number }>();
let timing = false;
if (values.statements) {
  // Every statement the service prepares is one of this class: time its calls.
  const proto = Object.getPrototypeOf(new SQLite(':memory:').prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const real = proto[method]!;
    proto[method] = function (this: { source: string }, ...a: unknown[]) {
      if (!timing) return real.apply(this, a);
      const start = performance.now();
      try {
        return real.apply(this, a);
      } finally {
        const s = spent.get(this.source) ?? { calls: 0, ms: 0 };
        s.calls++;
        s.ms += performance.now() - start;
        spent.set(this.source, s);
      }
    };
  }
}

const copy = copyFullData('bench-requests');
const app = await buildInProcess(copy);
try {
  await app.ready();
  const login = await app.inject({ method: 'POST', url: '/login', payload: { email: values.user, password: BENCH_PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login as ${values.user}: ${login.statusCode} ${login.body}`);
  const headers = { cookie: String(login.headers['set-cookie']).split(';')[0]!, 'accept-encoding': 'br, gzip' };
  for (const url of positionals) {
    const nth = (i: number) => url.replaceAll('{i}', String(i));
    let last = await app.inject({ method: 'GET', url: nth(calls + 1), headers });
    for (let i = 2; i <= 3; i++) last = await app.inject({ method: 'GET', url: nth(calls + i), headers });
    const cpu = process.cpuUsage();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const start = performance.now();
    spent.clear();
    timing = true;
    for (let i = 1; i <= calls; i++) {
      await app.inject({ method: 'GET', url: nth(i), headers });
      // A turn of the loop after each call, whose timers phase samples the delay: a request answered without
      // waiting for I/O (SQLite is synchronous) would otherwise let no sample happen at all.
      await new Promise(setImmediate);
    }
    const wallMs = (performance.now() - start) / calls;
    timing = false;
    delay.disable();
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000 / calls;
    console.log(
      `${url}  ${last.statusCode}, ${last.rawPayload.length} bytes: ${wallMs.toFixed(2)} ms a request (CPU ${cpuMs.toFixed(2)} ms), the event loop held up to ${(delay.max / 1e6).toFixed(1)} ms at once`,
    );
    for (const [text, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(
        `  ${(s.calls / calls).toFixed(1)} a request, ${((s.ms / calls) * 1000).toFixed(0).padStart(5)} µs: ${text.length > 110 ? `${text.slice(0, 110)}…` : text}`,
      );
    }
  }
} finally {
  await app.close();
  copy.remove();
}
