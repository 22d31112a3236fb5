// The benchmark suite: generates (or reuses) the population, measures a bare
// Fastify baseline, starts the real service on the data and drives every
// scenario with autocannon, then writes the report to bench/results/.
//   npm run bench -- [--size full|small|tiny] [--db sqlite|postgres] [--connections N] [--duration S]
//                    [--only key,key] [--regenerate] [--out DIR] [--quick] [--scale-out] [--profile]
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Answer, type LoadResult, probe, runLoad, type Step } from './lib/load.js';
import { NGINX_SITE, findNginx, startNginx } from './lib/nginx.js';
import {
  type Measured,
  markdown,
  NOT_IN_ONLY,
  type Report,
  resultLine,
  type ScaleOutResult,
  type ScenarioResult,
  writeReport,
} from './lib/report.js';
import { setupRunDatabase } from './lib/database-setup.js';
import { presetNamed } from './lib/presets.js';
import { BENCH_PASSWORD, emailOf, type RoleName, ROLES } from './lib/roles.js';
import { loginMix, type Scenario, scenarios } from './lib/scenarios.js';
import { type ChildServer, type Sampled, serviceCommand, startServer, withSampling } from './lib/server.js';
import { buildServer } from '../scripts/build-server.mjs';
import { meets, PEAK_RSS_TARGET_MB, TARGET_CONDITIONS, TARGETS } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    db: { type: 'string', default: 'sqlite' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    only: { type: 'string' },
    regenerate: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results' },
    quick: { type: 'boolean', default: false },
    'scale-out': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});

function positive(name: string, raw: string | undefined, def: number): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return n;
}

const quick = values.quick!;
if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db must be sqlite or postgres');
const dialect = values.db;
const scaleOut = values['scale-out']!;
if (scaleOut && dialect !== 'postgres') throw new Error('--scale-out runs two instances on PostgreSQL: add --db postgres');
const preset = presetNamed(quick ? 'tiny' : values.size!);
const connections = positive('connections', values.connections, quick ? 4 : 64);
const durationS = positive('duration', values.duration, quick ? 1 : 10);
const warmupS = quick ? 0 : Math.min(2, durationS);
const loginConnections = quick ? 2 : 16;
const only = values.only ? new Set(values.only.split(',')) : null;
const log = (line: string) => console.log(line);

const startedAt = new Date();
const HELLO_STEPS: Step[] = [{ method: 'GET', path: '/' }];
/** One hello-world run: its rate, and its main thread's CPU a request (null without /proc). */
interface HelloRun {
  rps: number;
  microsPerRequest: number | null;
}
// Hello world measured right after the last endpoint: the next endpoint's "before".
let helloAfterLast: HelloRun | undefined;
let helloUrl = '';
let helloServer: ChildServer | undefined;
const database = await setupRunDatabase({ db: dialect, preset, throwAway: quick, regenerate: values.regenerate!, log });
const running = new Set<ChildServer>();
const serviceEnv = {
  DATABASE_URL: database.databaseUrl,
  NODE_ENV: 'production',
  // Shared by every instance, so a session from one is valid on the others.
  JWT_SECRET: randomBytes(32).toString('hex'),
  // Fixed, so every run measures the same simulated prices.
  MARKET_SEED: 'bench-market-seed-not-a-secret-0123456789',
  // Limits stay on, as in production, raised so that every request is counted and none refused.
  RATE_LIMITS: 'on',
  AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
  PUBLIC_RATE_LIMIT_PER_MINUTE: '10000000',
  WRITE_RATE_LIMIT_PER_MINUTE: '10000000',
  // The login mix's connections all come from one address and may all wait for a hash:
  // the queue's bound, wait limit and fair share are raised so every login is measured.
  HASH_QUEUE_MAX: '10000',
  HASH_QUEUE_WAIT_MS: '60000',
  HASH_QUEUE_PER_CLIENT: '10000',
  WORKERS: 'off',
  LOG_LEVEL: 'warn',
};
// --profile: each service process writes a V8 CPU profile when it stops (open it in Chrome DevTools).
const profileDir = path.join(values.out!, 'profiles', startedAt.toISOString().replace(/[:.]/g, '-'));
// The service runs as npm start runs it: built to JavaScript, with the start script's flags.
await buildServer({ quiet: true });
const service = serviceCommand();
const nodeArgs = [...service.nodeArgs, ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
const startService = async (name: string, extra: Record<string, string> = {}) => {
  const s = await startServer(name, service.entry, { ...serviceEnv, ...extra }, { nodeArgs });
  running.add(s);
  return s;
};
const stop = async (s: ChildServer) => {
  await s.stop();
  running.delete(s);
};
try {
  log(`\nBaseline: bare Fastify hello world, ${connections} connections × ${durationS} s`);
  // Kept running (idle between its runs): each scenario is measured between two hello-world runs.
  const hello = await startServer('hello-world server', 'bench/hello-server.ts', {});
  running.add(hello);
  helloUrl = hello.url;
  helloServer = hello;
  const baseline = await measure(hello.url, HELLO_STEPS, undefined, connections);
  log(`  ${Math.round(baseline.rps).toLocaleString('en-US')} req/s, p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms`);

  log(`\nService on ${dialect} (${preset.name} data)`);
  const server = await startService('service');
  const all = scenarios(preset.users).filter((s) => !only || only.has(s.key));
  const results = await runScenarios(server, all);
  const loginMixResult: Report['loginMix'] =
    !only || only.has('login-mix')
      ? await runLoginMix(server, baseline.rps)
      : { status: 'skipped', detail: NOT_IN_ONLY, target: TARGETS.leaderboardDuringLogins, pass: null };
  log(
    loginMixResult.leaderboard
      ? `GET /leaderboard during logins (${loginMixResult.loginsPerSecond?.toFixed(1)} logins/s): p99 ${loginMixResult.leaderboard.p99Ms} ms, ` +
          `target ≤ ${TARGETS.leaderboardDuringLogins.maxP99Ms} ms: ${loginMixResult.pass ? 'pass' : 'FAIL'}`
      : `GET /leaderboard during logins: ${loginMixResult.status}${loginMixResult.detail ? `: ${loginMixResult.detail}` : ''}`,
  );
  const sampled = Math.max(0, ...results.map((r) => r.measured?.peakRssMb ?? 0), loginMixResult.leaderboard?.peakRssMb ?? 0);
  const peakRssMb = Math.max(server.memory().peakMb, sampled);
  await stop(server);
  const scaleOutResult = scaleOut ? await runScaleOut(all, results) : undefined;

  const report: Report = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      node: process.version,
      os: `${os.type()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      dialect,
      size: preset.name,
      connections,
      durationS,
      quick,
      only: only ? [...only] : null,
      targetConditions:
        connections === TARGET_CONDITIONS.connections &&
        durationS === TARGET_CONDITIONS.durationS &&
        dialect === TARGET_CONDITIONS.dialect &&
        preset.name === TARGET_CONDITIONS.size,
      dataset: database.dataset,
    },
    baseline: { requestsPerSecond: baseline.rps, p50Ms: baseline.p50Ms, p99Ms: baseline.p99Ms },
    results,
    loginMix: loginMixResult,
    memory: { peakRssMb, targetMb: PEAK_RSS_TARGET_MB, pass: peakRssMb < PEAK_RSS_TARGET_MB },
    ...(scaleOutResult ? { scaleOut: scaleOutResult } : {}),
  };
  const files = writeReport(report, values.out!);
  log(`\n${markdown(report)}`);
  log(`Report: ${files.json}\n        ${files.md}\n        ${files.svg}`);
  if (values.profile) log(`CPU profiles: ${profileDir}`);
} catch (err) {
  // A server that died mid-run says why in its last lines.
  for (const s of running) log(`\n${s.name}, its last output:\n${s.output() || '(none)'}`);
  throw err;
} finally {
  for (const s of running) await s.stop();
  await database.cleanup();
}

async function runScenarios(server: ChildServer, list: Scenario[]): Promise<ScenarioResult[]> {
  helloAfterLast = undefined;
  const cookies = await logInRoles(server.url, list);
  const results: ScenarioResult[] = [];
  for (const scenario of list) {
    const result = await runScenario(server, scenario, cookies);
    results.push(result);
    log(resultLine(result));
  }
  return results;
}

/** Two instances on the same PostgreSQL database behind nginx (deploy/nginx/), beside one instance's figures. */
async function runScaleOut(list: Scenario[], single: ScenarioResult[]): Promise<ScaleOutResult> {
  const binary = findNginx();
  if (!binary) {
    log('\nScale-out skipped: nginx is not installed (Debian: apt-get update && apt-get install -y nginx).');
    return { status: 'skipped', detail: 'nginx is not installed', instances: 2, results: [], single };
  }
  log(`\nScale-out: two instances on ${dialect} behind nginx (${NGINX_SITE})`);
  const instances = [await startService('instance 1', { TRUST_PROXY: '127.0.0.1' }), await startService('instance 2', { TRUST_PROXY: '127.0.0.1' })];
  const proxy = await startNginx(
    binary,
    instances.map((i) => new URL(i.url).host),
  );
  running.add(proxy);
  // Memory of the service is the instances' together; nginx's own is not counted.
  const front: ChildServer = {
    ...proxy,
    memory: () => {
      const each = instances.map((i) => i.memory());
      return { rssMb: each.reduce((a, m) => a + m.rssMb, 0), peakMb: each.reduce((a, m) => a + m.peakMb, 0) };
    },
  };
  try {
    const results = await runScenarios(front, list);
    const proxyErrors = proxy.errorLog();
    if (proxyErrors.length > 0) log(`nginx's error log:\n${proxyErrors.slice(0, 20).join('\n')}`);
    return { status: 'ok', instances: instances.length, results, single, proxyErrors };
  } finally {
    await stop(proxy);
    for (const i of instances) await stop(i);
  }
}

async function measureHello(): Promise<HelloRun> {
  const { value, cpu } = await withSampling(helloServer!, () => measure(helloUrl, HELLO_STEPS, undefined, connections));
  return { rps: value.rps, microsPerRequest: cpu && value.rps > 0 ? (cpu.serverThreadPct / 100 / value.rps) * 1e6 : null };
}

async function helloBefore(): Promise<HelloRun> {
  return helloAfterLast ?? (await measureHello());
}

/** A warm-up (unrecorded) then the measurement. */
async function measure(url: string, steps: Step[], cookie: string | undefined, conns: number): Promise<LoadResult> {
  if (warmupS > 0) await runLoad({ url, steps, cookie, connections: conns, durationS: warmupS });
  return runLoad({ url, steps, cookie, connections: conns, durationS });
}

async function logInRoles(url: string, list: Scenario[]): Promise<Map<RoleName, string>> {
  const cookies = new Map<RoleName, string>();
  for (const role of new Set(list.map((s) => s.role).filter((r): r is RoleName => r !== null))) {
    const res = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: emailOf(ROLES[role].id), password: BENCH_PASSWORD }),
    });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('auth_token='));
    if (res.status !== 200 || !cookie) throw new Error(`logging in as ${ROLES[role].username} failed: ${res.status} ${await res.text()}`);
    cookies.set(role, cookie.split(';')[0]);
  }
  return cookies;
}

function measured(
  load: LoadResult,
  sampled: Omit<Sampled<unknown>, 'value'>,
  perUnit: number,
  baselineRps: number,
  baselineMicrosPerRequest: number | null = null,
): Measured {
  const perSecond = load.rps / perUnit;
  const { peakRssMb, sharedCorePct, cpu } = sampled;
  return {
    perSecond,
    requestsPerSecond: load.rps,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    ratio: perSecond / baselineRps,
    baselineRps,
    peakRssMb,
    sharedCorePct,
    cpu: cpu && { ...cpu, serverMicrosPerUnit: perSecond > 0 ? (cpu.serverThreadPct / 100 / perSecond) * 1e6 : 0, baselineMicrosPerRequest },
    statusCounts: load.statusCounts,
    errors: load.errors,
  };
}

/** Non-2xx answers and connection errors, e.g. "500×3, errors×1"; empty when every request answered 2xx. */
function failures(load: LoadResult): string {
  const parts = Object.entries(load.statusCounts)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}×${n}`);
  if (load.errors > 0) parts.push(`connection errors×${load.errors}`);
  return parts.join(', ');
}

async function runScenario(server: ChildServer, s: Scenario, cookies: Map<RoleName, string>): Promise<ScenarioResult> {
  const base = { key: s.key, label: s.label, unit: s.unit, target: s.target, ...(s.note ? { note: s.note } : {}) };
  const cookie = s.role ? cookies.get(s.role) : undefined;
  const p = await probe(server.url, s.steps, cookie);
  if (!p.ok) {
    return {
      ...base,
      status: 'failing',
      detail: `${p.step} answered ${p.status} ${p.body}`,
      pass: false,
    };
  }
  const before = await helloBefore();
  const { value: load, ...sampled } = await withSampling(server, () => measure(server.url, s.steps, cookie, connections));
  const after = await measureHello();
  helloAfterLast = after;
  // The mean of hello world just before and just after: a drift over the endpoint's run cancels out.
  const paired = (before.rps + after.rps) / 2;
  const helloMicros = [before.microsPerRequest, after.microsPerRequest].filter((x): x is number => x !== null);
  const m = measured(
    load,
    sampled,
    s.unit === 'pair' ? 2 : 1,
    paired,
    helloMicros.length ? helloMicros.reduce((a, b) => a + b) / helloMicros.length : null,
  );
  const failed = failures(load);
  const pass = failed ? false : meets(s.target, m.ratio, m.p99Ms);
  const single = s.steps.length === 1 && s.steps[0].method === 'GET';
  const missedRatio = s.target?.minRatio !== undefined && m.ratio < s.target.minRatio;
  const ceilings = single && missedRatio ? await ceilingsFor(p.lastAnswer, paired) : undefined;
  // Those runs came after the hello world just measured: the next endpoint gets a fresh "before".
  if (ceilings) helloAfterLast = undefined;
  return {
    ...base,
    status: failed ? 'errors' : 'ok',
    ...(failed ? { detail: failed } : {}),
    pass,
    measured: m,
    ...ceilings,
  };
}

/**
 * The bare hello-world server answering with a body of this answer's size,
 * then replaying the answer itself (body and headers), each beside the paired hello world.
 */
async function ceilingsFor(answer: Answer, pairedRps: number): Promise<Pick<ScenarioResult, 'bodyCeiling' | 'answerCeiling'>> {
  const bodyBytes = Buffer.byteLength(answer.body);
  const sized = await measure(helloUrl, [{ method: 'GET', path: `/bytes/${bodyBytes}` }], undefined, connections);
  const res = await fetch(`${helloUrl}/answers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) });
  const { id } = (await res.json()) as { id: string };
  const replayed = await measure(helloUrl, [{ method: 'GET', path: `/answers/${id}` }], undefined, connections);
  return {
    bodyCeiling: { bodyBytes, requestsPerSecond: sized.rps, ratio: sized.rps / pairedRps },
    answerCeiling: { headers: Object.keys(answer.headers).length, requestsPerSecond: replayed.rps, ratio: replayed.rps / pairedRps },
  };
}

async function runLoginMix(server: ChildServer, baselineRps: number): Promise<Report['loginMix']> {
  const target = TARGETS.leaderboardDuringLogins;
  const { logins, reads } = loginMix(preset.users);
  for (const steps of [logins, reads]) {
    const p = await probe(server.url, steps);
    if (!p.ok) {
      return { status: 'failing', detail: `${p.step} answered ${p.status} ${p.body}`, target, pass: false };
    }
  }
  const { value, ...sampled } = await withSampling(server, () =>
    Promise.all([
      runLoad({ url: server.url, steps: logins, connections: loginConnections, durationS }),
      runLoad({ url: server.url, steps: reads, connections, durationS }),
    ]),
  );
  const [loginLoad, readLoad] = value;
  const failed = [failures(loginLoad) && `logins: ${failures(loginLoad)}`, failures(readLoad) && `leaderboard: ${failures(readLoad)}`]
    .filter(Boolean)
    .join('; ');
  const leaderboard = measured(readLoad, sampled, 1, baselineRps);
  return {
    status: failed ? 'errors' : 'ok',
    ...(failed ? { detail: failed } : {}),
    target,
    pass: failed ? false : meets(target, leaderboard.ratio, leaderboard.p99Ms),
    leaderboard,
    loginsPerSecond: loginLoad.rps,
  };
}
