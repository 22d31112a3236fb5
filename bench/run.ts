// The benchmark suite: generates (or reuses) the population, starts the
// service as deployed (npm start's command line, the production
// configuration) beside two hello worlds (the service's logging, and none),
// drives every scenario with wrk in rounds, anchors PostgreSQL with pgbench,
// then writes the report (the median of the rounds, and every round) to
// bench/results/.
//   npm run bench -- [--size full|small|tiny] [--db sqlite|postgres] [--connections N] [--duration S] [--runs N]
//                    [--only key,key] [--regenerate] [--out DIR] [--quick] [--scale-out] [--profile] [--pgbench-clients N] [--pool-size N]
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../scripts/build-server.mjs';
import { setupRunDatabase } from './lib/database-setup.js';
import { type Drained, drainOutbox, type FanOutStep, measureFanOut, type OutboxQueue, outboxQueue } from './lib/fanout.js';
import { type Answer, type LoadResult, type Plan, probe, SESSION_COOKIE } from './lib/load.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { findNginx, NGINX_SITE, startNginx } from './lib/nginx.js';
import { createPgbenchDatabase, findPgbench, type PgbenchDatabase, type PgbenchResult, runPgbench } from './lib/pgbench.js';
import { presetNamed } from './lib/presets.js';
import {
  type Anchors,
  type Baseline,
  baselineOf,
  type FanOutResult,
  type LoginMixResult,
  type Measured,
  markdown,
  medianMeasured,
  NOT_IN_ONLY,
  type Report,
  resultLine,
  type ScaleOutResult,
  type ScenarioResult,
  writeReport,
} from './lib/report.js';
import { BENCH_PASSWORD, emailOf, type RoleName, ROLES } from './lib/roles.js';
import { EXTRA_KEYS, loginMix, type Scenario, type Sessions, scenarios, traderCount, tradersOf } from './lib/scenarios.js';
import {
  type ChildServer,
  freePort,
  LOAD_CPU,
  SERVER_CPU,
  type Sampled,
  serviceCommand,
  startServer,
  taskset,
  waitQuiet,
  withSampling,
} from './lib/server.js';
import { mergeStalls, type StallScrape, type StallSummary, scrapeStalls, stallsBetween } from './lib/stalls.js';
import { checkServiceConfig, servicePoolSize, serviceEnv } from './lib/service-env.js';
import { median } from './lib/stats.js';
import { meets, PEAK_RSS_TARGET_MB, type Target, TARGET_CONDITIONS, targetsFor } from './lib/targets.js';
import { postgresServerUrl } from './lib/targets-db.js';
import {
  addedCpuOf,
  TRIGGER_RULES,
  type TriggerReadFigures,
  TriggerRules,
  type TriggersResult,
  triggersTable,
  triggersVerdict,
} from './lib/triggers.js';
import { findWrk, runWrk, WRK_MISSING, wrkVersion } from './lib/wrk.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    db: { type: 'string', default: 'sqlite' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    runs: { type: 'string' },
    only: { type: 'string' },
    regenerate: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results' },
    quick: { type: 'boolean', default: false },
    'scale-out': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'pgbench-clients': { type: 'string' },
    'pool-size': { type: 'string' },
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
const wrk = findWrk();
if (!wrk) throw new Error(`${WRK_MISSING}: the benchmark's load generator`);
const preset = presetNamed(quick ? 'tiny' : values.size!);
const connections = positive('connections', values.connections, quick ? 4 : 64);
const durationS = positive('duration', values.duration, quick ? 1 : 10);
const runs = positive('runs', values.runs, quick ? 1 : 3);
const warmupS = quick ? 0 : Math.min(2, durationS);
// A smoke run warms its writes all the same: a service's first writes (its checkpoint worker starting), on a
// machine busy with other tests, can take longer than its one-second measurement.
const writeWarmupS = quick ? 1 : warmupS;
const loginConnections = quick ? 2 : 16;
// Long enough to measure the outbox's delivery rate; what it leaves is dropped (bench/lib/fanout.ts).
const drainMaxS = quick ? 2 : 120;
const fanOutOpens = quick ? 1 : 5;
const pgbenchScale = quick ? 1 : 10;
const traderTotal = traderCount(connections, quick);
const allScenarios = scenarios(preset, dialect, traderTotal);
const only = values.only ? new Set(values.only.split(',')) : null;
if (only) {
  const known = new Set<string>([...allScenarios.map((s) => s.key), ...EXTRA_KEYS]);
  const unknown = [...only].filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`--only: unknown ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
}
const chosen = (key: string) => !only || only.has(key);
const log = (line: string) => console.log(line);

const startedAt = new Date();
/** Minutes and seconds since the run began, for the progress lines. */
const elapsed = () => {
  const s = Math.round((Date.now() - startedAt.getTime()) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
const HELLO_PLAN: Plan = { kind: 'single', request: { method: 'GET', path: '/' } };
const pinning = taskset() ? { server: SERVER_CPU, loadGenerator: LOAD_CPU } : null;
const serverCpu = pinning ? SERVER_CPU : null;
const database = await setupRunDatabase({ db: dialect, preset, throwAway: quick, regenerate: values.regenerate!, log });
const redisUrl = dialect === 'postgres' ? (process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? null) : null;
const poolSize = values['pool-size'] ? positive('pool-size', values['pool-size'], 10) : null;
const env = serviceEnv({ databaseUrl: database.databaseUrl, jwtSecret: randomBytes(32).toString('hex'), redisUrl, poolSize });
const serviceConfig = checkServiceConfig(env);
const running = new Set<ChildServer>();
let pgbenchDb: PgbenchDatabase | null = null;
let queue: OutboxQueue | null = null;
// --profile: each service process writes a V8 CPU profile when it stops (open it in Chrome DevTools).
const profileDir = path.join(values.out!, 'profiles', startedAt.toISOString().replace(/[:.]/g, '-'));
// The service runs as npm start runs it: built to JavaScript, with the start script's flags.
await buildServer({ quiet: true });
const service = serviceCommand();
const nodeArgs = [...service.nodeArgs, ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
const track = <T extends ChildServer>(s: T): T => {
  running.add(s);
  return s;
};
const stop = async (s: ChildServer) => {
  await s.stop();
  running.delete(s);
};
const startService = async (name: string, extra: Record<string, string> = {}) => {
  // Each instance serves its metrics on a port of its own: its stalls are scraped around each scenario (bench/lib/stalls.ts).
  const metricsPort = extra.METRICS_PORT ?? env.METRICS_PORT ?? String(await freePort());
  const s = track(await startServer(name, service.entry, { ...env, ...extra, METRICS_PORT: metricsPort }, { nodeArgs, cpu: serverCpu }));
  s.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // What it does on starting (the record's publication, the outbox's first rounds) is not billed to a scenario.
  if (!(await waitQuiet(s.pid, quick ? 10_000 : 120_000))) log(`  (${name} was still busy after starting; measuring anyway)`);
  return s;
};
// Node and flags as the service's; the level the service logs at (LOG_LEVEL unset in both).
const startHello = (name: string, logging: 'service' | 'off') =>
  startServer(name, 'bench/hello-server.ts', { NODE_ENV: 'production', HELLO_LOGGING: logging }, { nodeArgs: service.nodeArgs, cpu: serverCpu });

/** Where a round sends its load and what it compares with. */
interface Stage {
  url: string;
  /** The service's processes, sampled for CPU and memory. */
  servers: ChildServer[];
  /** The hello world with the service's logging (paired before and after each scenario), and the one without. */
  hello: { url: string; server: ChildServer };
  bare: { url: string; server: ChildServer };
  /** The target a scenario is judged on here. */
  targetOf(s: Scenario): Target | null;
  /** The ratio to the paired hello world is judged against nginx's hello (the scale-out run). */
  throughNginx: boolean;
}

interface HelloRun {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** The hello world's main-thread CPU a request (µs); null without /proc. */
  microsPerRequest: number | null;
  /** Its main thread's and wrk's CPU, in % of one core: which side limited the baseline. */
  serverThreadPct: number | null;
  loadGeneratorPct: number | null;
}

try {
  log(
    `\n[${elapsed()}] Service on ${dialect} (${preset.name} data), ${connections} connections × ${durationS} s, ${runs === 1 ? 'one run' : `${runs} runs`}`,
  );
  log(
    pinning
      ? `Pinned: the servers and pgbench on core ${SERVER_CPU}, wrk on core ${LOAD_CPU}.`
      : 'Not pinned (no taskset, or fewer than two cores): the figures mix the servers with the load generator.',
  );
  if (dialect === 'postgres' && !redisUrl) log('No TEST_REDIS_URL or REDIS_URL: PostgreSQL runs without Redis (rate limits and caches in memory).');
  // Started together; each one up is tracked before any failure is thrown, so none outlives the run.
  const started = await Promise.allSettled([
    startHello('hello world (service logging)', 'service').then(track),
    startHello('hello world (no logging)', 'off').then(track),
    startService('service'),
  ]);
  const failedStart = started.find((r) => r.status === 'rejected');
  if (failedStart) throw failedStart.reason;
  const [hello, bare, server] = started.map((r) => (r as PromiseFulfilledResult<ChildServer>).value) as [ChildServer, ChildServer, ChildServer];
  queue = outboxQueue(database.databaseUrl);
  const list = allScenarios.filter((s) => chosen(s.key));
  const { traders } = tradersOf(preset, traderTotal);
  // The trigger engine's check measures every read scenario again, with and without live rules.
  const readScenarios = allScenarios.filter((s) => s.kind === 'read');
  const loginList = chosen('triggers') ? [...list, ...readScenarios.filter((s) => !list.includes(s))] : list;
  const sessions = await logIn(server.url, loginList, traders, chosen('fan-out') ? ['trader', 'fanOutMid', 'fanOutLarge'] : []);

  let anchorsSetup: { binary: string; clients: number } | null = null;
  let anchors: Anchors | undefined;
  if (dialect === 'postgres') {
    const binary = findPgbench();
    const clients = values['pgbench-clients'] ? positive('pgbench-clients', values['pgbench-clients'], 10) : servicePoolSize(serviceConfig);
    if (!binary) anchors = { status: 'skipped', detail: 'pgbench is not installed (Debian: postgresql-client)', clients, scale: pgbenchScale };
    else {
      log(`\n[${elapsed()}] Anchors: pgbench -i -s ${pgbenchScale} in a scratch database, then -N and -S with ${clients} clients each round`);
      // A smoke run's database is its own: several test runs may share the server.
      const name = quick ? `bench_pgbench_${randomBytes(4).toString('hex')}` : undefined;
      pgbenchDb = await createPgbenchDatabase(binary, postgresServerUrl(process.env), pgbenchScale, name);
      anchorsSetup = { binary, clients };
    }
  }

  const stage: Stage = {
    url: server.url,
    servers: [server],
    hello: { url: hello.url, server: hello },
    bare: { url: bare.url, server: bare },
    targetOf: (s) => s.target,
    throughNginx: false,
  };
  const rounds = await runRounds(stage, list, sessions, anchorsSetup, chosen('login-mix'));
  if (anchorsSetup) anchors = anchorsOf(anchorsSetup.clients, rounds.pgbench);

  let fanOut: FanOutResult | undefined;
  if (chosen('fan-out')) {
    log(
      `\n[${elapsed()}] Fan-out: ${fanOutOpens} opens in a row at 0, ${preset.fanOut[0].toLocaleString('en-US')} and ${preset.fanOut[1].toLocaleString('en-US')} linked followers`,
    );
    const steps = await measureFanOut(
      server.url,
      [
        { followers: 0, cookie: sessions.roles.get('trader')! },
        { followers: preset.fanOut[0], cookie: sessions.roles.get('fanOutMid')! },
        { followers: preset.fanOut[1], cookie: sessions.roles.get('fanOutLarge')! },
      ],
      fanOutOpens,
      queue,
      drainMaxS,
    );
    for (const s of steps) log(fanOutLine(s));
    const failed = steps.find((s) => s.failed);
    fanOut = { status: failed ? 'failing' : 'ok', ...(failed ? { detail: failed.failed } : {}), opensEach: fanOutOpens, steps };
  }

  const triggers = chosen('triggers') ? await measureTriggers(server, readScenarios, sessions, traders) : undefined;

  const sampledPeak = Math.max(0, ...rounds.results.map((r) => r.measured?.peakRssMb ?? 0), rounds.loginMix.leaderboard?.peakRssMb ?? 0);
  const peakRssMb = Math.max(server.memory().peakMb, sampledPeak);
  await stop(server);
  const scaleOutResult = scaleOut ? await runScaleOut(list, rounds.results, sessions, hello, bare) : undefined;

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
      runs,
      quick,
      only: only ? [...only] : null,
      targetConditions:
        connections === TARGET_CONDITIONS.connections &&
        durationS === TARGET_CONDITIONS.durationS &&
        preset.name === TARGET_CONDITIONS.size &&
        runs >= TARGET_CONDITIONS.runs,
      dataset: database.dataset,
      pinning,
      loadGenerator: wrkVersion(wrk),
      service: {
        command: ['node', ...nodeArgs, service.entry].join(' '),
        // Every instance serves its metrics (its stalls are scraped around each scenario), each on a port of its own.
        env: shownEnv({ ...env, METRICS_PORT: env.METRICS_PORT ?? '<a free port each>' }),
        logs: 'stdout and stderr to pipes the benchmark reads as they fill and discards (it keeps the last 16 KiB)',
      },
      redis: redisUrl !== null,
    },
    baseline: rounds.hello,
    bareBaseline: rounds.bare,
    ...(anchors ? { anchors } : {}),
    results: rounds.results,
    loginMix: rounds.loginMix,
    ...(fanOut ? { fanOut } : {}),
    ...(triggers ? { triggers } : {}),
    memory: { peakRssMb, targetMb: PEAK_RSS_TARGET_MB, pass: peakRssMb <= PEAK_RSS_TARGET_MB },
    ...(scaleOutResult ? { scaleOut: scaleOutResult } : {}),
  };
  const files = writeReport(report, values.out!);
  log(`\n${markdown(report)}`);
  log(`Report: ${files.json}\n        ${files.md}\n        ${files.svg}`);
  if (values.profile) log(`CPU profiles: ${profileDir}`);
} catch (err) {
  // A server that died mid-run says why in its last lines.
  for (const s of running) log(`\n${s.name}, its last output:\n${s.output().split('\n').slice(-40).join('\n') || '(none)'}`);
  throw err;
} finally {
  for (const s of running) await s.stop();
  await queue?.close();
  await pgbenchDb?.drop();
  await database.cleanup();
}

/** The environment as the report shows it: secrets redacted, a database password too. */
function shownEnv(e: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'JWT_SECRET') out[k] = '[redacted]';
    else if (k === 'DATABASE_URL' || k === 'REDIS_URL') out[k] = v.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:[redacted]@');
    else out[k] = v;
  }
  return out;
}

/**
 * The trigger engine's cost (issue 37): the service idle and every read scenario, without live rules,
 * then with TRIGGER_RULES planted; then how long after its crossing each planted rule that fired did.
 * The rules are removed afterwards.
 */
async function measureTriggers(server: ChildServer, readScenarios: Scenario[], sessions: Sessions, traders: number[]): Promise<TriggersResult> {
  const quoteIntervalMs = Math.max(1_000, serviceConfig.prices.cacheTtlMs);
  const idleS = quick ? 1 : 3 * Math.ceil(quoteIntervalMs / 1000);
  // A smoke run keeps the code working on two reads; its figures are not read.
  const reads = quick ? readScenarios.slice(0, 2) : readScenarios;
  const idle = async () => (await withSampling([server], () => sleep(idleS * 1000))).server?.threadPct ?? null;
  const readRound = async () => {
    const out: Array<{ rps: number; micros: number | null }> = [];
    for (const s of reads) {
      const { value, server: cpu } = await withSampling([server], () => measure(server.url, s.plan(sessions)));
      out.push({ rps: value.rps, micros: cpu && value.rps > 0 ? (cpu.threadPct / 100 / value.rps) * 1e6 : null });
    }
    return out;
  };
  const cookie = sessions.traders[0] ?? [...sessions.roles.values()][0];
  const priceOf = async (ticker: string) => {
    const res = await fetch(`${server.url}/price/${encodeURIComponent(ticker)}`, { headers: { cookie: cookie ?? '' } });
    if (res.status !== 200) throw new Error(`GET /price/${ticker} answered ${res.status}`);
    return ((await res.json()) as { price: number }).price;
  };
  const spare = new Set<number>([...Object.values(ROLES).map((r) => r.id), ...traders]);
  const rules = new TriggerRules(database.databaseUrl);
  try {
    log(`\n[${elapsed()}] Trigger engine: idle ${idleS} s and every read scenario, without live rules`);
    const idleWithout = await idle();
    const without = await readRound();
    // A smoke run's population has few open bets: a tenth of the rules keeps the code working.
    const planted = await rules.plant(quick ? TRIGGER_RULES / 10 : TRIGGER_RULES, spare, priceOf);
    log(`  [${elapsed()}] planted ${planted.total.toLocaleString('en-US')} rules on ${planted.tickers} instruments; the same again with them`);
    // The engine's first pass over them (it reads every live rule's starting quotes once) is not billed to a scenario.
    await sleep((quick ? 1 : 2) * quoteIntervalMs);
    const idleWith = await idle();
    const withRules = await readRound();
    // A near rule crossed in the last interval fires in the next pass.
    await sleep(quick ? 1_000 : quoteIntervalMs + 1_000);
    const latencies = await rules.latencies();
    await rules.remove();
    const figures: TriggerReadFigures[] = reads.map((s, i) => ({ key: s.key, label: s.label, without: without[i]!, with: withRules[i]! }));
    const meanReadPct = without.reduce((sum, r) => sum + (r.micros ?? 0) * r.rps, 0) / without.length / 1e4;
    const all = [...latencies.alerts, ...latencies.exits];
    const result: TriggersResult = {
      status: 'ok',
      planted,
      quoteIntervalMs,
      idlePct: { without: idleWithout, with: idleWith },
      reads: figures,
      addedCpu: addedCpuOf(figures),
      addedCpuIdle: idleWithout !== null && idleWith !== null && meanReadPct > 0 ? (idleWith - idleWithout) / meanReadPct : null,
      latencies,
      slowestMs: all.length ? Math.max(...all) : null,
      pass: null,
    };
    result.pass = triggersVerdict(result);
    for (const line of triggersTable(result)) log(line);
    return result;
  } catch (err) {
    await rules.remove().catch(() => undefined);
    return { status: 'failing', detail: (err as Error).message, quoteIntervalMs, pass: false };
  } finally {
    await rules.close();
  }
}

/** Logs in once each: the special users the scenarios need, then the traders (a few at a time: the hash is slow by design). */
async function logIn(url: string, list: Scenario[], traders: number[], extraRoles: RoleName[]): Promise<Sessions> {
  const roles = new Map<RoleName, string>();
  const wanted = new Set<RoleName>([...extraRoles, ...list.map((s) => s.who).filter((w): w is RoleName => w !== null && w !== 'traders')]);
  for (const role of wanted) roles.set(role, await sessionOf(url, emailOf(ROLES[role].id)));
  const cookies: string[] = [];
  if (list.some((s) => s.who === 'traders')) {
    log(`Logging in ${traders.length} traders`);
    for (let i = 0; i < traders.length; i += 4) {
      cookies.push(...(await Promise.all(traders.slice(i, i + 4).map((id) => sessionOf(url, emailOf(id))))));
    }
  }
  return { roles, traders: cookies };
}

async function sessionOf(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-encoding': 'br, gzip' },
    body: JSON.stringify({ email, password: BENCH_PASSWORD }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (res.status !== 200 || !cookie) throw new Error(`logging in as ${email} failed: ${res.status} ${await res.text()}`);
  // As a browser sends it back: name=value, nothing of the attributes.
  return cookie.split(';')[0]!;
}

/** A warm-up (unrecorded) then the measurement. */
async function measure(url: string, plan: Plan, conns = connections): Promise<LoadResult> {
  if (warmupS > 0) await runWrk({ binary: wrk!, url, plan, connections: conns, durationS: warmupS });
  return runWrk({ binary: wrk!, url, plan, connections: conns, durationS });
}

async function measureHello(h: { url: string; server: ChildServer }): Promise<HelloRun> {
  const { value, server } = await withSampling([h.server], () => measure(h.url, HELLO_PLAN));
  return {
    rps: value.rps,
    p50Ms: value.p50Ms,
    p99Ms: value.p99Ms,
    microsPerRequest: server && value.rps > 0 ? (server.threadPct / 100 / value.rps) * 1e6 : null,
    serverThreadPct: server?.threadPct ?? null,
    loadGeneratorPct: value.loadGeneratorPct,
  };
}

/** Non-2xx answers and connection errors, e.g. "500×3, connection errors×1"; empty when every request answered 2xx. */
function failures(load: LoadResult): string {
  const parts = Object.entries(load.statusCounts)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}×${n}`);
  if (parts.length === 0 && load.non2xx > 0) parts.push(`status ≥ 400×${load.non2xx}`);
  if (load.errors > 0) parts.push(`connection errors×${load.errors}`);
  return parts.join(', ');
}

function measuredOf(
  load: LoadResult,
  sampled: Omit<Sampled<unknown>, 'value'>,
  perUnit: number,
  helloRps: number,
  helloMicros: number | null,
  helloP99Ms: number | null = null,
): Measured {
  const perSecond = load.rps / perUnit;
  const s = sampled.server;
  return {
    perSecond,
    requestsPerSecond: load.rps,
    p50Ms: load.p50Ms,
    p90Ms: load.p90Ms,
    p99Ms: load.p99Ms,
    maxMs: load.maxMs,
    ratio: perSecond / helloRps,
    baselineRps: helloRps,
    baselineP99Ms: helloP99Ms,
    ratioBare: null,
    bareBaselineRps: null,
    peakRssMb: sampled.peakRssMb,
    cpu:
      s && load.loadGeneratorPct !== null
        ? {
            serverThreadPct: s.threadPct,
            serverPct: s.processPct,
            loadGeneratorPct: load.loadGeneratorPct,
            serverMicrosPerUnit: perSecond > 0 ? (s.threadPct / 100 / perSecond) * 1e6 : 0,
            baselineMicrosPerRequest: helloMicros,
          }
        : null,
    logBytesPerRequest: load.requests > 0 ? sampled.outputBytes / load.requests : null,
    statusCounts: load.statusCounts,
    non2xx: load.non2xx,
    errors: load.errors,
  };
}

interface Rounds {
  results: ScenarioResult[];
  loginMix: LoginMixResult;
  hello: Baseline;
  bare: Baseline;
  pgbench: Array<{ n: PgbenchResult; s: PgbenchResult }>;
}

/**
 * `runs` rounds of every scenario: each round measures the hello world
 * without logging at its start and end, the anchors (PostgreSQL), then each
 * scenario between two runs of the hello world with the service's logging,
 * then the leaderboard during logins. Figures are the medians of the rounds.
 */
async function runRounds(
  stage: Stage,
  list: Scenario[],
  sessions: Sessions,
  anchorsSetup: { binary: string; clients: number } | null,
  withLoginMix: boolean,
): Promise<Rounds> {
  const perScenario = new Map<string, { runs: Measured[]; failure?: ScenarioResult; lastAnswer?: Answer; errors: string[] }>();
  for (const s of list) perScenario.set(s.key, { runs: [], errors: [] });
  const helloRuns: HelloRun[] = [];
  const bareRuns: HelloRun[] = [];
  const pgbench: Array<{ n: PgbenchResult; s: PgbenchResult }> = [];
  const mixRuns: Measured[] = [];
  const mixLogins: number[] = [];
  let mixFailure: LoginMixResult | undefined;
  const mixErrors: string[] = [];
  for (let round = 1; round <= runs; round++) {
    log(`\n[${elapsed()}] Round ${round} of ${runs}${stage.throughNginx ? ', through nginx' : ''}`);
    const bareStart = await measureHello(stage.bare);
    let pgN: PgbenchResult | null = null;
    if (anchorsSetup && pgbenchDb) {
      pgN = await runPgbench(anchorsSetup.binary, pgbenchDb.url, '-N', anchorsSetup.clients, durationS);
      const pgS = await runPgbench(anchorsSetup.binary, pgbenchDb.url, '-S', anchorsSetup.clients, durationS);
      pgbench.push({ n: pgN, s: pgS });
      log(
        `pgbench -N ${Math.round(pgN.tps).toLocaleString('en-US')} tps, -S ${Math.round(pgS.tps).toLocaleString('en-US')} tps (${anchorsSetup.clients} clients)`,
      );
    }
    const roundMeasured: Measured[] = [];
    const pairedHello = async () => {
      const h = await measureHello(stage.hello);
      helloRuns.push(h);
      return h;
    };
    // The first scenario's "before"; each later one's is the previous one's "after".
    let helloAfterLast = await pairedHello();
    for (const s of list) {
      const state = perScenario.get(s.key)!;
      if (state.failure) continue;
      const plan = s.plan(sessions);
      const p = await probe(stage.url, plan);
      if (!p.ok) {
        state.failure = { ...baseOf(s, stage), status: 'failing', detail: `${p.step} answered ${p.status} ${p.body}`, pass: false };
        log(resultLine(state.failure));
        continue;
      }
      state.lastAnswer = p.lastAnswer;
      const before = helloAfterLast;
      if (s.kind === 'write' && writeWarmupS > 0) {
        await runWrk({ binary: wrk!, url: stage.url, plan, connections, durationS: writeWarmupS });
        if (queue) await drainOutbox(queue, drainMaxS);
      }
      const stallsBefore = await scrapeServers(stage.servers);
      const { value: load, ...sampled } = await withSampling(stage.servers, () =>
        runWrk({ binary: wrk!, url: stage.url, plan, connections, durationS }),
      );
      const stalls = stallsOver(stallsBefore, await scrapeServers(stage.servers));
      // The notices a write queued are delivered before the next measurement, which would otherwise pay for them.
      const outbox: Drained | undefined = s.kind === 'write' && queue ? await drainOutbox(queue, drainMaxS) : undefined;
      // A smoke run measures the hello world once a round: its figures are not read, its time is.
      const after = quick ? before : await pairedHello();
      helloAfterLast = after;
      const micros = [before.microsPerRequest, after.microsPerRequest].filter((x): x is number => x !== null);
      const m = measuredOf(
        load,
        sampled,
        s.unit === 'pair' ? 2 : 1,
        (before.rps + after.rps) / 2,
        micros.length ? micros.reduce((a, b) => a + b) / micros.length : null,
        (before.p99Ms + after.p99Ms) / 2,
      );
      if (outbox) m.outbox = outbox;
      m.stalls = stalls;
      if (pgN && s.kind === 'write') {
        m.ratioPgbenchN = m.perSecond / pgN.tps;
        m.pgbenchNTps = pgN.tps;
      }
      if (stage.throughNginx) {
        m.ratioNginxHello = m.ratio;
        m.nginxHelloRps = m.baselineRps;
      }
      const failed = failures(load);
      if (failed) state.errors.push(failed);
      state.runs.push(m);
      roundMeasured.push(m);
      log(
        `  [${elapsed()}] ${s.label}: ${Math.round(m.perSecond).toLocaleString('en-US')} ${s.unit === 'pair' ? 'pairs/s' : 'req/s'}, p99 ${m.p99Ms} ms`,
      );
    }
    if (withLoginMix && !mixFailure) {
      const mix = await loginMixRound(stage, helloAfterLast);
      if ('failure' in mix) mixFailure = mix.failure;
      else {
        mixRuns.push(mix.measured);
        roundMeasured.push(mix.measured);
        mixLogins.push(mix.loginsPerSecond);
        if (mix.errors) mixErrors.push(mix.errors);
      }
    }
    const bareEnd = await measureHello(stage.bare);
    bareRuns.push(bareStart, bareEnd);
    const bareRps = (bareStart.rps + bareEnd.rps) / 2;
    for (const m of roundMeasured) {
      m.ratioBare = m.perSecond / bareRps;
      m.bareBaselineRps = bareRps;
    }
  }

  const results: ScenarioResult[] = [];
  for (const s of list) {
    const state = perScenario.get(s.key)!;
    if (state.failure) {
      results.push(state.failure);
      continue;
    }
    const target = stage.targetOf(s);
    const m = medianMeasured(state.runs);
    const pass = state.errors.length ? false : meets(target, m, m.p99Ms);
    const result: ScenarioResult = {
      ...baseOf(s, stage),
      status: state.errors.length ? 'errors' : 'ok',
      ...(state.errors.length ? { detail: state.errors.join('; ') } : {}),
      pass,
      measured: m,
      runs: state.runs,
    };
    // A read that misses its ratio: what the hello world reaches answering with that answer's size, and that very answer.
    const missed = target?.minRatio !== undefined && (target.against ?? 'hello') === 'hello' && m.ratio < target.minRatio;
    // A smoke run measures them for one read only: enough to keep the code working.
    const ceilingsWanted = !quick || !results.some((x) => x.bodyCeiling);
    if (s.kind === 'read' && missed && state.lastAnswer && !stage.throughNginx && ceilingsWanted) {
      Object.assign(result, await ceilingsFor(stage, state.lastAnswer, m.baselineRps));
    }
    results.push(result);
    log(resultLine(result));
  }

  const mixTarget = loginMix(preset, dialect).target;
  let loginMixResult: LoginMixResult;
  if (!withLoginMix) loginMixResult = { status: 'skipped', detail: NOT_IN_ONLY, target: mixTarget, pass: null };
  else if (mixFailure) loginMixResult = mixFailure;
  else {
    const leaderboard = medianMeasured(mixRuns);
    loginMixResult = {
      status: mixErrors.length ? 'errors' : 'ok',
      ...(mixErrors.length ? { detail: mixErrors.join('; ') } : {}),
      target: mixTarget,
      pass: mixErrors.length ? false : meets(mixTarget, leaderboard, leaderboard.p99Ms),
      leaderboard,
      runs: mixRuns,
      loginsPerSecond: median(mixLogins),
    };
    log(
      `GET /leaderboard during logins (${loginMixResult.loginsPerSecond!.toFixed(1)} logins/s): p50 ${leaderboard.p50Ms} ms, p99 ${leaderboard.p99Ms} ms, ` +
        `longest stall ${leaderboard.stalls ? `${leaderboard.stalls.longestMs} ms (${leaderboard.stalls.cause})` : 'not measured'}, ` +
        `target p99 ≤ ${mixTarget.maxP99Ms} ms: ${loginMixResult.pass ? 'pass' : 'FAIL'}`,
    );
  }
  return { results, loginMix: loginMixResult, hello: baselineOf(helloRuns), bare: baselineOf(bareRuns), pgbench };
}

/** Each service instance's stall figures now (null where its metrics did not answer). */
function scrapeServers(servers: ChildServer[]): Promise<Array<StallScrape | null>> {
  return Promise.all(servers.map((s) => (s.metricsUrl ? scrapeStalls(s.metricsUrl) : Promise.resolve(null))));
}

/** The stalls over a scenario's load, every instance together; null when an instance's metrics did not answer. */
function stallsOver(before: Array<StallScrape | null>, after: Array<StallScrape | null>): StallSummary | null {
  const each: StallSummary[] = [];
  for (const [i, b] of before.entries()) {
    const a = after[i];
    if (!b || !a) return null;
    each.push(stallsBetween(b, a));
  }
  return mergeStalls(each);
}

function baseOf(s: Scenario, stage: Stage): Pick<ScenarioResult, 'key' | 'label' | 'kind' | 'unit' | 'target' | 'note' | 'sharedPublic'> {
  return {
    key: s.key,
    label: s.label,
    kind: s.kind,
    unit: s.unit,
    target: stage.targetOf(s),
    ...(s.note ? { note: s.note } : {}),
    ...(s.sharedPublic ? { sharedPublic: true } : {}),
  };
}

/** Logins at full speed (their own wrk) while the leaderboard is measured at the run's connections. */
async function loginMixRound(
  stage: Stage,
  hello: HelloRun,
): Promise<{ failure: LoginMixResult } | { measured: Measured; loginsPerSecond: number; errors: string }> {
  const { logins, reads, target } = loginMix(preset, dialect);
  for (const plan of [logins, reads]) {
    const p = await probe(stage.url, plan);
    if (!p.ok) return { failure: { status: 'failing', detail: `${p.step} answered ${p.status} ${p.body}`, target, pass: false } };
  }
  const stallsBefore = await scrapeServers(stage.servers);
  const { value, ...sampled } = await withSampling(stage.servers, () =>
    Promise.all([
      runWrk({ binary: wrk!, url: stage.url, plan: logins, connections: loginConnections, durationS }),
      runWrk({ binary: wrk!, url: stage.url, plan: reads, connections, durationS }),
    ]),
  );
  const stalls = stallsOver(stallsBefore, await scrapeServers(stage.servers));
  const [loginLoad, readLoad] = value;
  const errors = [failures(loginLoad) && `logins: ${failures(loginLoad)}`, failures(readLoad) && `leaderboard: ${failures(readLoad)}`]
    .filter(Boolean)
    .join('; ');
  const measured = measuredOf(readLoad, sampled, 1, hello.rps, hello.microsPerRequest, hello.p99Ms);
  measured.stalls = stalls;
  return { measured, loginsPerSecond: loginLoad.rps, errors };
}

/**
 * The hello world (with the service's logging) answering with a body of this
 * answer's size, then replaying the answer itself (body and headers).
 */
async function ceilingsFor(stage: Stage, answer: Answer, helloRps: number): Promise<Pick<ScenarioResult, 'bodyCeiling' | 'answerCeiling'>> {
  const bodyBytes = Buffer.byteLength(answer.body);
  const sized = await measure(stage.hello.url, { kind: 'single', request: { method: 'GET', path: `/bytes/${bodyBytes}` } });
  const res = await fetch(`${stage.hello.url}/answers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(answer),
  });
  const { id } = (await res.json()) as { id: string };
  const replayed = await measure(stage.hello.url, { kind: 'single', request: { method: 'GET', path: `/answers/${id}` } });
  return {
    bodyCeiling: { bodyBytes, requestsPerSecond: sized.rps, ratio: sized.rps / helloRps },
    answerCeiling: { headers: Object.keys(answer.headers).length, requestsPerSecond: replayed.rps, ratio: replayed.rps / helloRps },
  };
}

function anchorsOf(clients: number, runsOf: Array<{ n: PgbenchResult; s: PgbenchResult }>): Anchors {
  const figures = (pick: (r: { n: PgbenchResult; s: PgbenchResult }) => PgbenchResult) => {
    const all = runsOf.map(pick);
    const latencies = all.map((r) => r.latencyMs).filter((x): x is number => x !== null);
    return { tps: median(all.map((r) => r.tps)), latencyMs: latencies.length ? median(latencies) : null, runs: all };
  };
  if (runsOf.length === 0) return { status: 'skipped', detail: 'no round ran', clients, scale: pgbenchScale };
  return { status: 'ok', clients, scale: pgbenchScale, pgbenchN: figures((r) => r.n), pgbenchS: figures((r) => r.s) };
}

function fanOutLine(s: FanOutStep): string {
  const head = `  ${s.followers.toLocaleString('en-US').padStart(6)} followers:`;
  if (s.failed) return `${head} failing: ${s.failed}`;
  const d = s.delivered;
  const delivered =
    !d || d.pendingAtStart === 0
      ? ''
      : d.seconds === null
        ? `; ${d.pendingLeft} of ${d.pendingAtStart} notices still pending`
        : `; ${d.pendingAtStart} notices delivered in ${d.seconds.toFixed(1)} s`;
  return `${head} open median ${s.medianOpenMs.toFixed(1)} ms (${s.openMs.map((x) => x.toFixed(1)).join(', ')})${delivered}`;
}

/** Two instances on the same PostgreSQL database behind nginx (deploy/nginx/), beside one instance's figures. */
async function runScaleOut(
  list: Scenario[],
  single: ScenarioResult[],
  sessions: Sessions,
  hello: ChildServer,
  bare: ChildServer,
): Promise<ScaleOutResult> {
  const binary = findNginx();
  if (!binary) {
    log('\nScale-out skipped: nginx is not installed (Debian: apt-get update && apt-get install -y nginx).');
    return { status: 'skipped', detail: 'nginx is not installed', instances: 2, results: [], single };
  }
  log(`\n[${elapsed()}] Scale-out: two instances on ${dialect} behind nginx (${NGINX_SITE}), hello worlds through the same nginx without a cache`);
  const instances = [await startService('instance 1', { TRUST_PROXY: '127.0.0.1' }), await startService('instance 2', { TRUST_PROXY: '127.0.0.1' })];
  const proxy = track(
    await startNginx(
      binary,
      instances.map((i) => new URL(i.url).host),
      [hello, bare].map((h) => new URL(h.url).host),
    ),
  );
  try {
    // The sessions of the single instance's run: every instance shares the secret and the database.
    const scaleTarget = targetsFor(dialect).scaleOutPublicRead;
    const stage: Stage = {
      url: proxy.url,
      servers: instances,
      hello: { url: proxy.plainUrls[0]!, server: hello },
      bare: { url: proxy.plainUrls[1]!, server: bare },
      targetOf: (s) => (s.sharedPublic ? scaleTarget : null),
      throughNginx: true,
    };
    // A smoke run sends through nginx what the proxy treats apart: the cached public reads, a session read, a write.
    const through = quick ? list.filter((s) => s.sharedPublic || ['health', 'price', 'bet-pairs'].includes(s.key)) : list;
    const rounds = await runRounds(stage, through, sessions, null, false);
    const proxyErrors = proxy.errorLog();
    if (proxyErrors.length > 0) log(`nginx's error log:\n${proxyErrors.slice(0, 20).join('\n')}`);
    return {
      status: 'ok',
      instances: instances.length,
      results: rounds.results,
      single,
      nginxHello: rounds.hello,
      nginxBareHello: rounds.bare,
      all2xx: rounds.results.every((r) => r.status === 'ok'),
      proxyErrors,
    };
  } finally {
    await stop(proxy);
    for (const i of instances) await stop(i);
  }
}
