// Servers the suite starts as child processes (the real service, the bare
// Fastify baselines, nginx), pinned to a core when asked, their readiness,
// their memory and their CPU from /proc.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** The service's metrics endpoint (METRICS_PORT), scraped around each scenario for its event-loop stalls. */
  metricsUrl?: string;
  /** Resident memory now and the process's peak so far, in MiB. */
  memory(): { rssMb: number; peakMb: number };
  /** The last output the process wrote (at most 16 KiB), for diagnosing a failed start or run. */
  output(): string;
  /** Bytes the process has written to stdout and stderr so far: its log volume. */
  outputBytes(): number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The service as `npm start` runs it (package.json's start script: node, its
 * flags, the built entry point), so the suite measures what is deployed.
 */
export function serviceCommand(packageJson = path.resolve('package.json')): { nodeArgs: string[]; entry: string } {
  const start = (JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> }).scripts?.start ?? '';
  const words = start.trim().split(/\s+/);
  const entry = words.at(-1) ?? '';
  if (words[0] !== 'node' || !/\.m?js$/.test(entry)) throw new Error(`package.json's start script is not "node [flags] FILE.js": ${start}`);
  return { nodeArgs: words.slice(1, -1), entry };
}

/** The cores the server and the load generator are pinned to. */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

let tasksetPath: string | null | undefined;
/** taskset's path when it exists and this machine lets us use both cores; null otherwise (nothing is pinned). */
export function taskset(): string | null {
  if (tasksetPath === undefined) {
    tasksetPath = null;
    if (os.cpus().length > Math.max(SERVER_CPU, LOAD_CPU)) {
      for (const candidate of ['/usr/bin/taskset', '/bin/taskset']) {
        if (!fs.existsSync(candidate)) continue;
        try {
          execFileSync(candidate, ['-c', `${SERVER_CPU},${LOAD_CPU}`, 'true']);
          tasksetPath = candidate;
        } catch {
          // the cpuset does not include those cores
        }
        break;
      }
    }
  }
  return tasksetPath;
}

/** command and args run on one core (taskset execs the command: the pid is the command's); as given when nothing can be pinned. */
export function pinned(cpu: number | null, command: string, args: string[]): { command: string; args: string[]; pinnedTo: number | null } {
  const ts = cpu === null ? null : taskset();
  return ts ? { command: ts, args: ['-c', String(cpu), command, ...args], pinnedTo: cpu } : { command, args, pinnedTo: null };
}

/**
 * Starts `node [NODE_ARGS] ENTRY` on a free loopback port (with tsx for a
 * TypeScript ENTRY), on core `cpu` when given, and waits until GET / answers 200.
 */
export async function startServer(
  name: string,
  entry: string,
  env: Record<string, string>,
  opts: { nodeArgs?: string[]; timeoutMs?: number; cpu?: number | null } = {},
): Promise<ChildServer> {
  const port = await freePort();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const run = pinned(opts.cpu ?? null, process.execPath, [...(opts.nodeArgs ?? []), ...loader, entry]);
  return startProcess(name, run.command, run.args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    url: `http://127.0.0.1:${port}`,
    timeoutMs,
  });
}

const KEEP_BYTES = 16 * 1024;

/**
 * Spawns a server process and waits until GET {url}/ answers 200. Its stdout
 * and stderr are pipes this process drains as they fill, keeping only the last
 * 16 KiB: the service writes its logs as deployed (to a pipe someone reads),
 * and nothing here parses them while a measurement runs.
 */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; url: string; timeoutMs?: number },
): Promise<ChildServer> {
  const child = spawn(command, args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;
  const keep = (chunk: Buffer) => {
    total += chunk.length;
    tail.push(chunk);
    tailBytes += chunk.length;
    if (tailBytes > 4 * KEEP_BYTES) {
      const joined = Buffer.concat(tail).subarray(-KEEP_BYTES);
      tail = [joined];
      tailBytes = joined.length;
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null = null;
  child.once('exit', (code, signal) => {
    exited = code ?? (signal ? 128 : 1);
  });
  child.once('error', (err) => {
    keep(Buffer.from(`${String(err)}\n`));
    exited = 127;
  });
  const { url } = opts;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const server: ChildServer = {
    name,
    url,
    pid: child.pid ?? 0,
    memory: () => memoryOf(child.pid ?? 0),
    output: () => Buffer.concat(tail).subarray(-KEEP_BYTES).toString('utf8'),
    outputBytes: () => total,
    stop: () => stopChild(child),
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited with ${exited} before it was ready:\n${server.output()}`);
    try {
      const res = await fetch(`${url}/`);
      await res.arrayBuffer();
      if (res.ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(`${name} was not ready within ${timeoutMs / 1000} s:\n${server.output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** VmRSS and VmHWM from /proc; `ps` where there is no /proc (peak then means the largest value seen by the caller's sampling). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    try {
      const rssKb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
      return { rssMb: rssKb / 1024, peakMb: rssKb / 1024 };
    } catch {
      return { rssMb: 0, peakMb: 0 };
    }
  }
}

/**
 * CPU time a thread or process has used, in clock ticks: utime + stime,
 * fields 14 and 15 of a /proc stat line. The command name (field 2) may hold
 * spaces and parentheses, so the fields are counted from its last closing
 * parenthesis.
 */
export function cpuTicksOf(stat: string): number | null {
  const rest = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state): fields 14 and 15 are rest[11] and rest[12].
  const ticks = Number(rest[11]) + Number(rest[12]);
  return Number.isFinite(ticks) && ticks >= 0 ? ticks : null;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux unless getconf says otherwise). */
let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU seconds used so far by a process's main thread and by the whole process; null without /proc. */
export function cpuSecondsOf(pid: number): { thread: number; process: number } | null {
  try {
    const thread = cpuTicksOf(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    const all = cpuTicksOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return thread === null || all === null ? null : { thread: thread / clockTicks(), process: all / clockTicks() };
  } catch {
    return null;
  }
}

/** CPU use over a measurement, in % of one core (100 = one core busy the whole time). */
export interface CpuUse {
  /** The server's main thread: near 100, the server's event loop was the limit. */
  serverThreadPct: number;
  /** The whole server process (its main thread, libuv's pool, V8's helpers). */
  serverPct: number;
  /** The load generator (wrk), from its own resource usage: near 100, it was the limit. */
  loadGeneratorPct: number;
}

export interface Sampled<T> {
  value: T;
  /** The largest resident size seen (MiB). */
  peakRssMb: number;
  /** The server's CPU over fn's run, in % of one core; null without /proc. */
  server: { threadPct: number; processPct: number } | null;
  /** Bytes the server wrote to its stdout and stderr during fn's run (its logs). */
  outputBytes: number;
}

/** Samples the servers' memory every 100 ms while fn runs, and their CPU over the whole run. */
export async function withSampling<T>(servers: ChildServer[], fn: () => Promise<T>): Promise<Sampled<T>> {
  const rss = () => servers.reduce((sum, s) => sum + s.memory().rssMb, 0);
  let peak = rss();
  const startedAt = performance.now();
  const before = servers.map((s) => cpuSecondsOf(s.pid));
  const bytesBefore = servers.reduce((sum, s) => sum + s.outputBytes(), 0);
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 100);
  try {
    const value = await fn();
    const seconds = (performance.now() - startedAt) / 1000;
    const after = servers.map((s) => cpuSecondsOf(s.pid));
    let server: Sampled<T>['server'] = null;
    if (seconds > 0 && before.every((b) => b !== null) && after.every((a) => a !== null)) {
      const used = (pick: 'thread' | 'process') => after.reduce((sum, a, i) => sum + a![pick] - before[i]![pick], 0);
      server = { threadPct: (used('thread') / seconds) * 100, processPct: (used('process') / seconds) * 100 };
    }
    return {
      value,
      peakRssMb: Math.max(peak, rss()),
      server,
      outputBytes: servers.reduce((sum, s) => sum + s.outputBytes(), 0) - bytesBefore,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Waits until a process is idle (under 5 % of a core over half a second), at
 * most `maxMs`: what it does after starting (the record's publication, the
 * outbox's first rounds) is not billed to the first scenario. True when idle.
 */
export async function waitQuiet(pid: number, maxMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const a = cpuSecondsOf(pid);
    await sleep(500);
    const b = cpuSecondsOf(pid);
    if (a === null || b === null) return true;
    if ((b.process - a.process) / 0.5 < 0.05) return true;
  }
  return false;
}

/** The children's user and system seconds from the shell's `times` (its second line), e.g. "0m1.230000s 0m0.450000s". */
export function parseTimes(stdout: string): number | null {
  const lines = stdout.split('\n').filter((l) => /^\d+m[\d.]+s \d+m[\d.]+s$/.test(l.trim()));
  const children = lines.at(-1);
  if (!children || lines.length < 2) return null;
  const [user, system] = children
    .trim()
    .split(' ')
    .map((t) => {
      const m = /^(\d+)m([\d.]+)s$/.exec(t);
      return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
    });
  return (user ?? 0) + (system ?? 0);
}

export interface CountedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The command's CPU seconds (all its threads, to its end); null when the shell did not say. */
  cpuSeconds: number | null;
  wallSeconds: number;
}

/**
 * Runs a command to its end on core `cpu`, under `sh`, so that its CPU time
 * comes from the shell's `times` (the resource usage of a reaped child, all
 * of its threads, to the end) rather than from /proc samples that stop
 * before it exits.
 */
export async function runCounted(cpu: number | null, binary: string, args: string[]): Promise<CountedRun> {
  const run = pinned(cpu, '/bin/sh', ['-c', 'bin="$1"; shift; "$bin" "$@"; rc=$?; times; exit $rc', 'sh', binary, ...args]);
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(run.command, run.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
  return { code, stdout, stderr, cpuSeconds: parseTimes(stdout), wallSeconds: (performance.now() - started) / 1000 };
}
