// Servers the suite starts as child processes (the real service, the bare
// Fastify baseline), their readiness and their memory.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** Resident memory now and the process's peak so far, in MiB. */
  memory(): { rssMb: number; peakMb: number };
  /** The last lines the process wrote, for diagnosing a failed start or run. */
  output(): string;
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
  if (words[0] !== 'node' || !entry.endsWith('.js')) throw new Error(`package.json's start script is not "node [flags] FILE.js": ${start}`);
  return { nodeArgs: words.slice(1, -1), entry };
}

/**
 * Starts `node [NODE_ARGS] ENTRY` on a free loopback port (with tsx for a
 * TypeScript ENTRY) and waits until GET / answers 200.
 */
export async function startServer(
  name: string,
  entry: string,
  env: Record<string, string>,
  opts: { nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<ChildServer> {
  const port = await freePort();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return startProcess(name, process.execPath, [...(opts.nodeArgs ?? []), ...loader, entry], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    url: `http://127.0.0.1:${port}`,
    timeoutMs,
  });
}

/** Spawns a server process and waits until GET {url}/ answers 200. */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; url: string; timeoutMs?: number },
): Promise<ChildServer> {
  const child = spawn(command, args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null = null;
  child.once('exit', (code, signal) => {
    exited = code ?? (signal ? 128 : 1);
  });
  child.once('error', (err) => {
    lines.push(String(err));
    exited = 127;
  });
  const { url } = opts;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const server: ChildServer = {
    name,
    url,
    pid: child.pid ?? 0,
    memory: () => memoryOf(child.pid ?? 0),
    output: () => lines.join('\n'),
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
 * The CPU a thread last ran on: field 39 of a /proc/<pid>/task/<tid>/stat
 * line. The command name (field 2) may hold spaces and parentheses, so the
 * fields are counted from its last closing parenthesis.
 */
export function lastCpuOf(stat: string): number | null {
  const rest = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state): field 39 is rest[36].
  const cpu = Number(rest[36]);
  return Number.isInteger(cpu) && cpu >= 0 ? cpu : null;
}

/**
 * CPU time a thread or process has used, in clock ticks: utime + stime,
 * fields 14 and 15 of a /proc stat line (counted like lastCpuOf's field).
 */
export function cpuTicksOf(stat: string): number | null {
  const rest = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/);
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

/** CPU seconds used so far by a server's main thread and by the whole process; null without /proc. */
function readCpuSeconds(pid: number): { thread: number; process: number } | null {
  try {
    const thread = cpuTicksOf(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    const all = cpuTicksOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return thread === null || all === null ? null : { thread: thread / clockTicks(), process: all / clockTicks() };
  } catch {
    return null;
  }
}

/** The CPU a process's main thread last ran on; null without /proc. */
function readLastCpu(pid: number): number | null {
  try {
    return lastCpuOf(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

export interface Sampled<T> {
  value: T;
  /** The largest resident size seen (MiB). */
  peakRssMb: number;
  /**
   * Of the samples, the percentage in which the server's main thread had
   * last run on the core the load generator (this process's main thread,
   * where autocannon runs) was running on: when the kernel keeps the two on
   * one core, the server waits for it and every figure drops (README,
   * Performance). Null where /proc cannot tell.
   */
  sharedCorePct: number | null;
  /** Where the CPU went while fn ran, so a report tells which side was the limit; null without /proc. */
  cpu: CpuUse | null;
}

/** CPU use over a measurement, in % of one core (100 = one core busy the whole time). */
export interface CpuUse {
  /** The server's main thread: near 100, the server's event loop was the limit. */
  serverThreadPct: number;
  /** The whole server process (its main thread, libuv's pool, V8's helpers). */
  serverPct: number;
  /** This process, where autocannon runs: near 100, the load generator was the limit. */
  loadGeneratorPct: number;
}

/** Samples a server's memory, and where it runs beside the load generator, every 100 ms while fn runs. */
export async function withSampling<T>(server: ChildServer, fn: () => Promise<T>): Promise<Sampled<T>> {
  let peak = server.memory().rssMb;
  let samples = 0;
  let shared = 0;
  const startedAt = performance.now();
  const serverCpuBefore = readCpuSeconds(server.pid);
  const ownCpuBefore = process.cpuUsage();
  const timer = setInterval(() => {
    peak = Math.max(peak, server.memory().rssMb);
    const mine = readLastCpu(process.pid);
    const theirs = readLastCpu(server.pid);
    if (mine === null || theirs === null) return;
    samples += 1;
    if (mine === theirs) shared += 1;
  }, 100);
  try {
    const value = await fn();
    const seconds = (performance.now() - startedAt) / 1000;
    const serverCpuAfter = readCpuSeconds(server.pid);
    const own = process.cpuUsage(ownCpuBefore);
    const pct = (cpuSeconds: number) => (cpuSeconds / seconds) * 100;
    const cpu =
      serverCpuBefore === null || serverCpuAfter === null || seconds <= 0
        ? null
        : {
            serverThreadPct: pct(serverCpuAfter.thread - serverCpuBefore.thread),
            serverPct: pct(serverCpuAfter.process - serverCpuBefore.process),
            loadGeneratorPct: pct((own.user + own.system) / 1e6),
          };
    return { value, peakRssMb: Math.max(peak, server.memory().rssMb), sharedCorePct: samples > 0 ? (shared / samples) * 100 : null, cpu };
  } finally {
    clearInterval(timer);
  }
}
