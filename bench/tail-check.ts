// Where a saturated server's p99 comes from: a bare Fastify route that works a
// fixed time a request (a busy wait, then a 6 KB body) is loaded by 64
// keep-alive connections three ways, pinned as the benchmark pins: wrk with
// every connection sending at once (as the benchmark ran before ADMIT_MS,
// bench/lib/wrk.ts), wrk as the benchmark runs it (each connection's first
// request waits until all are admitted), and a Node client on the load's core.
// The server accepts one new connection a turn of its event loop (libuv 1.45
// and later); the first way makes the last connections wait for dozens of
// growing turns, and that wait is the tail.
//
//   node --import tsx bench/tail-check.ts [--work-us 100,700] [--duration 5]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { freePort, LOAD_CPU, pinned, SERVER_CPU, taskset } from './lib/server.js';
import { findWrk, loadResultOf, luaScript, parseWrkOutput, WRK_MISSING } from './lib/wrk.js';

const CONNECTIONS = 64;
const BODY = 'x'.repeat(6000);

async function serve(port: number, workUs: number): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  app.get('/', async () => {
    const until = performance.now() + workUs / 1000;
    while (performance.now() < until);
    return BODY;
  });
  await app.listen({ port, host: '127.0.0.1' });
  process.send?.('listening');
}

/** p50 and p99 in ms of a run of 64 keep-alive loops against the server, for `seconds`. */
async function nodeClient(port: number, seconds: number): Promise<{ rps: number; p50: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const end = Date.now() + seconds * 1000;
  const loop = async () => {
    while (Date.now() < end) {
      const start = performance.now();
      await new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99) };
}

function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) throw new Error(`not a wrk latency: ${text}`);
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

/** wrk -t1 -c64 with --latency, or with the benchmark's own script for the same request (`admitted`). */
async function wrk(binary: string, port: number, seconds: number, admitted: boolean): Promise<{ rps: number; p50: number; p99: number }> {
  const dir = admitted ? fs.mkdtempSync(path.join(os.tmpdir(), 'tail-check-')) : null;
  try {
    let how = ['--latency'];
    if (dir) {
      const script = path.join(dir, 'admitted.lua');
      fs.writeFileSync(script, luaScript({ kind: 'single', request: { method: 'GET', path: '/' } }, CONNECTIONS));
      how = ['-s', script];
    }
    const run = pinned(taskset() ? LOAD_CPU : null, binary, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, ...how, `http://127.0.0.1:${port}/`]);
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(run.command, run.args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
      });
      child.on('error', reject);
      child.on('close', () => resolve(text));
    });
    if (dir) {
      const r = loadResultOf(parseWrkOutput(out), null, 0);
      return { rps: r.rps, p50: r.p50Ms, p99: r.p99Ms };
    }
    const at = (label: string) => ms(new RegExp(`^\\s*${label}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? 'NaN');
    return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]), p50: at('50'), p99: at('99') };
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      client: { type: 'string' },
      'work-us': { type: 'string', default: '100,700' },
      duration: { type: 'string', default: '5' },
    },
  });
  const seconds = Number(values.duration);
  if (values.serve) return serve(Number(values.serve), Number(values['work-us']));
  if (values.client) {
    process.stdout.write(JSON.stringify(await nodeClient(Number(values.client), seconds)));
    return;
  }
  const binary = findWrk();
  if (!binary) throw new Error(WRK_MISSING);
  const self = [...process.execArgv, new URL(import.meta.url).pathname];
  const cores = taskset() ? '' : ' (unpinned: no taskset or one core)';
  console.log(`| work a request | client | req/s | p50 ms | p99 ms | p99 / p50 |${cores}`);
  console.log('|---:|---|---:|---:|---:|---:|');
  for (const workUs of values['work-us'].split(',').map(Number)) {
    const port = await freePort();
    const server = pinned(taskset() ? SERVER_CPU : null, process.execPath, [...self, '--serve', String(port), '--work-us', String(workUs)]);
    const child = spawn(server.command, server.args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    try {
      const viaWrk = await wrk(binary, port, seconds, false);
      const viaWrkAdmitted = await wrk(binary, port, seconds, true);
      const client = pinned(taskset() ? LOAD_CPU : null, process.execPath, [...self, '--client', String(port), '--duration', String(seconds)]);
      const viaNode = await new Promise<{ rps: number; p50: number; p99: number }>((resolve, reject) => {
        const c = spawn(client.command, client.args, { stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        c.stdout.on('data', (d) => {
          text += d;
        });
        c.on('error', reject);
        c.on('close', () => resolve(JSON.parse(text)));
      });
      for (const [name, r] of [
        ['wrk -t1 -c64, all sending at once', viaWrk],
        ['wrk -t1 -c64, admitted first (the benchmark)', viaWrkAdmitted],
        ['Node, 64 keep-alive loops', viaNode],
      ] as const) {
        console.log(`| ${workUs} µs | ${name} | ${Math.round(r.rps)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.p99 / r.p50).toFixed(1)}× |`);
      }
    } finally {
      child.kill();
    }
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
