// The suite's report: JSON (every figure of every run), a Markdown page and
// an SVG bar chart of throughput per endpoint, all under bench/results/.
import fs from 'node:fs';
import path from 'node:path';
import type { Drained, FanOutStep } from './fanout.js';
import type { GenerateSummary } from './generate.js';
import type { PgbenchResult } from './pgbench.js';
import type { CpuUse } from './server.js';
import { median, medianOrNull } from './stats.js';
import { checkpointWaitText, mergeStalls, type StallSummary, stallText } from './stalls.js';
import { describeTarget, type Target } from './targets.js';
import { type TriggersResult, triggersTable } from './triggers.js';

export type ScenarioStatus = 'ok' | 'errors' | 'failing' | 'skipped';

export interface Measured {
  /** Units (requests, or pairs) per second. */
  perSecond: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** perSecond ÷ the hello world with the service's logging, measured just before and just after (their mean). */
  ratio: number;
  baselineRps: number;
  /** The p99 of that same-logging hello world (their mean): the tail's bound is twice it (targets.ts). */
  baselineP99Ms?: number | null;
  /** perSecond ÷ the hello world without logging, measured at the start and the end of the round (their mean). */
  ratioBare: number | null;
  bareBaselineRps: number | null;
  /** PostgreSQL: perSecond ÷ `pgbench -N`'s tps of the same round. */
  ratioPgbenchN?: number | null;
  pgbenchNTps?: number | null;
  /** Scale-out: perSecond ÷ the hello world through the same nginx, without a cache. */
  ratioNginxHello?: number | null;
  nginxHelloRps?: number | null;
  peakRssMb: number;
  /**
   * Where the CPU went (server.ts), in % of one core, and the service's main
   * thread's CPU a unit (µs a request, or a pair), beside the hello world's a
   * request in its paired runs: the service's thread near 100 % means the
   * service was the limit; wrk near 100 % means the load generator was.
   */
  cpu: (CpuUse & { serverMicrosPerUnit: number; baselineMicrosPerRequest: number | null }) | null;
  /** What the service wrote to its stdout and stderr (its logs) a request. */
  logBytesPerRequest: number | null;
  /** Answers by status where the load counted them (sequences and logins); reads count only non2xx. */
  statusCounts: Record<string, number>;
  /** Answers of status 400 or more. */
  non2xx: number;
  /** Connection errors and time-outs. */
  errors: number;
  /** Writes: the outbox's delivery of what the run queued, waited for before the next scenario. */
  outbox?: Drained;
  /**
   * The service's event-loop stalls over 20 ms during the load (its metrics
   * scraped before and after, bench/lib/stalls.ts): the longest and its cause.
   * Of several runs: the longest of any run, the counts summed. Null when the
   * metrics did not answer; absent in reports from before it was measured.
   */
  stalls?: StallSummary | null;
}

export interface ScenarioResult {
  key: string;
  label: string;
  kind: 'read' | 'write' | 'login';
  unit: 'request' | 'pair';
  status: ScenarioStatus;
  /** Why it is not ok: the probe's answer, or the counts of failed requests. */
  detail?: string;
  note?: string;
  target: Target | null;
  pass: boolean | null;
  sharedPublic?: boolean;
  /** The medians of the runs, figure by figure. */
  measured?: Measured;
  /** Every run, in order. */
  runs?: Measured[];
  /**
   * Measured only when a read misses its throughput target: the hello world
   * (with the service's logging) sending a body of this endpoint's size, to
   * tell a cost of ours from the cost of moving that many bytes here.
   */
  bodyCeiling?: { bodyBytes: number; requestsPerSecond: number; ratio: number };
  /** With bodyCeiling: the same server replaying the endpoint's exact answer, its body and its `headers` headers. */
  answerCeiling?: { headers: number; requestsPerSecond: number; ratio: number };
}

export interface Baseline {
  /** The median of the runs. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Every run's requests per second. */
  runs: number[];
  /** Medians of the hello world's main thread and of wrk, in % of one core: which side limited the baseline. */
  serverThreadPct?: number | null;
  loadGeneratorPct?: number | null;
}

export interface LoginMixResult {
  status: ScenarioStatus;
  detail?: string;
  target: Target;
  pass: boolean | null;
  leaderboard?: Measured;
  runs?: Measured[];
  loginsPerSecond?: number;
}

export interface AnchorFigures {
  tps: number;
  latencyMs: number | null;
  runs: PgbenchResult[];
}

export interface Anchors {
  status: 'ok' | 'skipped' | 'failing';
  detail?: string;
  clients: number;
  scale: number;
  pgbenchN?: AnchorFigures;
  pgbenchS?: AnchorFigures;
}

export interface FanOutResult {
  status: 'ok' | 'failing' | 'skipped';
  detail?: string;
  opensEach: number;
  steps: FanOutStep[];
}

export interface ScaleOutResult {
  status: 'ok' | 'skipped';
  detail?: string;
  instances: number;
  /** The scenarios through nginx; memory figures are the instances' together. */
  results: ScenarioResult[];
  /** One instance's results, for the side-by-side table. */
  single: ScenarioResult[];
  /** Hello worlds through the same nginx, without a cache. */
  nginxHello?: Baseline;
  nginxBareHello?: Baseline;
  /** Every request of every scenario answered 2xx. */
  all2xx?: boolean;
  /** nginx's error log (warnings and worse) from the run: empty when the proxy saw nothing wrong. */
  proxyErrors?: string[];
}

export interface Report {
  meta: {
    startedAt: string;
    finishedAt: string;
    node: string;
    os: string;
    cpus: number;
    cpuModel: string;
    dialect: 'sqlite' | 'postgres';
    size: string;
    connections: number;
    durationS: number;
    /** Rounds of every scenario; each figure is the median of its rounds. */
    runs?: number;
    quick: boolean;
    /** The scenarios `--only` chose; null (or absent, in reports before it was recorded) when every one ran. */
    only?: string[] | null;
    /** True when the run matches the conditions the targets are stated for. */
    targetConditions: boolean;
    dataset: GenerateSummary | { reused: string };
    /** Cores the servers (and pgbench) and the load generator were pinned to; null when nothing was pinned. */
    pinning?: { server: number; loadGenerator: number } | null;
    loadGenerator?: string;
    /** The service's command line and environment (secrets shown as [redacted]), and where its logs went. */
    service?: { command: string; env: Record<string, string>; logs: string };
    redis?: boolean;
  };
  /** The hello world with the service's logging configuration. */
  baseline: Baseline;
  /** The hello world with logging off. */
  bareBaseline?: Baseline;
  anchors?: Anchors;
  results: ScenarioResult[];
  loginMix: LoginMixResult;
  fanOut?: FanOutResult;
  /** The trigger engine's cost under the read scenarios and its firings' delay (issue 37). */
  triggers?: TriggersResult;
  memory: { peakRssMb: number; targetMb: number; pass: boolean };
  scaleOut?: ScaleOutResult;
}

/** The medians of several runs, figure by figure; counts of failed answers are added up. */
export function medianMeasured(runs: Measured[]): Measured {
  const m = (pick: (r: Measured) => number) => median(runs.map(pick));
  const n = (pick: (r: Measured) => number | null | undefined) => medianOrNull(runs.map(pick));
  const statusCounts: Record<string, number> = {};
  for (const r of runs) for (const [code, count] of Object.entries(r.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + count;
  const cpus = runs.map((r) => r.cpu);
  const cpu = cpus.every((c) => c !== null)
    ? {
        serverThreadPct: median(cpus.map((c) => c!.serverThreadPct)),
        serverPct: median(cpus.map((c) => c!.serverPct)),
        loadGeneratorPct: median(cpus.map((c) => c!.loadGeneratorPct)),
        serverMicrosPerUnit: median(cpus.map((c) => c!.serverMicrosPerUnit)),
        baselineMicrosPerRequest: medianOrNull(cpus.map((c) => c!.baselineMicrosPerRequest)),
      }
    : null;
  const outboxes = runs.map((r) => r.outbox).filter((o): o is Drained => o !== undefined);
  const first = runs[0]!;
  const stalls = runs.map((r) => r.stalls).filter((x): x is StallSummary => x !== undefined && x !== null);
  return {
    perSecond: m((r) => r.perSecond),
    requestsPerSecond: m((r) => r.requestsPerSecond),
    p50Ms: m((r) => r.p50Ms),
    p90Ms: m((r) => r.p90Ms),
    p99Ms: m((r) => r.p99Ms),
    maxMs: m((r) => r.maxMs),
    ratio: m((r) => r.ratio),
    baselineRps: m((r) => r.baselineRps),
    baselineP99Ms: n((r) => r.baselineP99Ms),
    ratioBare: n((r) => r.ratioBare),
    bareBaselineRps: n((r) => r.bareBaselineRps),
    ...('ratioPgbenchN' in first ? { ratioPgbenchN: n((r) => r.ratioPgbenchN), pgbenchNTps: n((r) => r.pgbenchNTps) } : {}),
    ...('ratioNginxHello' in first ? { ratioNginxHello: n((r) => r.ratioNginxHello), nginxHelloRps: n((r) => r.nginxHelloRps) } : {}),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    cpu,
    logBytesPerRequest: n((r) => r.logBytesPerRequest),
    statusCounts,
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    ...('stalls' in first ? { stalls: mergeStalls(stalls) } : {}),
    ...(outboxes.length
      ? {
          outbox: {
            seconds: medianOrNull(outboxes.map((o) => o.seconds)),
            pendingAtStart: median(outboxes.map((o) => o.pendingAtStart)),
            pendingLeft: Math.max(...outboxes.map((o) => o.pendingLeft)),
            waitedS: median(outboxes.map((o) => o.waitedS ?? 0)),
          },
        }
      : {}),
  };
}

export function baselineOf(
  runs: Array<{ rps: number; p50Ms: number; p99Ms: number; serverThreadPct?: number | null; loadGeneratorPct?: number | null }>,
): Baseline {
  return {
    requestsPerSecond: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    runs: runs.map((r) => r.rps),
    serverThreadPct: medianOrNull(runs.map((r) => r.serverThreadPct)),
    loadGeneratorPct: medianOrNull(runs.map((r) => r.loadGeneratorPct)),
  };
}

const num = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratioText = (r: number | null | undefined) => (r === null || r === undefined ? '—' : `${num(r, 2)}×`);

/** Microseconds of CPU: a decimal below 100, whole with separators above ("13.9", "2,435"). */
export const formatMicros = (n: number) => num(n, n < 100 ? 1 : 0);

/** The login mix's detail when `--only` left it out: how reports from before `meta.only` tell a partial run. */
export const NOT_IN_ONLY = 'not in --only';
export const verdict = (pass: boolean | null) => (pass === null ? '—' : pass ? 'pass' : 'FAIL');
const unitText = (unit: ScenarioResult['unit']) => (unit === 'pair' ? 'pairs/s' : 'req/s');

/** The figure a target's ratio is judged on, as text ("0.81×", "0.18× pgbench -N"). */
function judgedRatio(r: ScenarioResult, m: Measured): string {
  const against = r.target?.against ?? 'hello';
  if (against === 'pgbench-N') return `${ratioText(m.ratioPgbenchN)} pgbench -N`;
  if (against === 'nginx-hello') return `${ratioText(m.ratioNginxHello)} hello via nginx`;
  return `${ratioText(m.ratio)} hello`;
}

export function resultLine(r: ScenarioResult): string {
  const head = r.label.padEnd(60);
  if (!r.measured) return `${head} ${r.status}${r.detail ? `: ${r.detail}` : ''}`;
  const m = r.measured;
  return (
    `${head} ${num(m.perSecond).padStart(7)} ${unitText(r.unit).padEnd(7)} p50 ${num(m.p50Ms, 1).padStart(6)} ms  p99 ${num(m.p99Ms, 1).padStart(6)} ms  ` +
    `${judgedRatio(r, m)} (${ratioText(m.ratioBare)} no-log hello)   target ${describeTarget(r.target)}: ${verdict(r.pass)}` +
    (r.status === 'errors' ? `   [${r.detail}]` : '') +
    (r.bodyCeiling ? `   [hello world, same ${num(r.bodyCeiling.bodyBytes)}-byte body: ${num(r.bodyCeiling.ratio, 2)}×` : '') +
    (r.answerCeiling ? `; same answer with its ${r.answerCeiling.headers} headers: ${num(r.answerCeiling.ratio, 2)}×` : '') +
    (r.bodyCeiling ? ']' : '') +
    (m.cpu ? `   [CPU: service thread ${cpuCell(m.cpu, r.unit)}; wrk ${num(m.cpu.loadGeneratorPct)} %]` : '') +
    (m.outbox ? `   [outbox: ${outboxText(m.outbox)}]` : '') +
    (m.stalls !== undefined ? `   [longest stall: ${stallText(m.stalls)}]` : '') +
    (checkpointWaitText(m.stalls) ? `   [${checkpointWaitText(m.stalls)}]` : '')
  );
}

function outboxText(o: Drained): string {
  if (o.pendingAtStart === 0) return 'nothing pending';
  if (o.seconds === null) {
    const delivered = o.pendingAtStart - o.pendingLeft;
    const rate = o.waitedS ? ` (${num(delivered / o.waitedS)} a second)` : '';
    return `${num(o.pendingAtStart)} notices pending after the run, ${num(delivered)} delivered in ${num(o.waitedS ?? 0, 1)} s${rate}, the ${num(o.pendingLeft)} left then dropped`;
  }
  return (
    `${num(o.pendingAtStart)} notices pending after the run, delivered in ${num(o.seconds, 1)} s` +
    (o.seconds > 0 ? ` (${num(o.pendingAtStart / o.seconds)} a second)` : '')
  );
}

/** The service thread's share of a core and its CPU per unit, e.g. "91 %, 215 µs a pair (hello world 13.9)". */
function cpuCell(cpu: NonNullable<Measured['cpu']>, unit: ScenarioResult['unit']): string {
  const hello = cpu.baselineMicrosPerRequest;
  return (
    `${num(cpu.serverThreadPct)} %, ${formatMicros(cpu.serverMicrosPerUnit)} µs a ${unit}` +
    (hello !== null ? ` (hello world ${formatMicros(hello)})` : '')
  );
}

function baselineText(b: Baseline): string {
  const cpu =
    typeof b.serverThreadPct === 'number' && typeof b.loadGeneratorPct === 'number'
      ? `, its thread ${num(b.serverThreadPct)} % of a core, wrk ${num(b.loadGeneratorPct)} %`
      : '';
  return `${num(b.requestsPerSecond)} req/s (runs: ${b.runs.map((x) => num(x)).join(' / ')}), p50 ${num(b.p50Ms, 1)} ms, p99 ${num(b.p99Ms, 1)} ms${cpu}`;
}

function runsCell(r: ScenarioResult): string {
  return r.runs && r.runs.length > 1 ? r.runs.map((x) => num(x.perSecond)).join(' / ') : '';
}

export function markdown(report: Report): string {
  const { meta } = report;
  const pg = meta.dialect === 'postgres';
  const runs = meta.runs ?? 1;
  const lines = [
    `# Benchmark: ${meta.dialect}, ${meta.size} data, ${meta.connections} connections × ${meta.durationS} s, ${runs === 1 ? 'one run' : `median of ${runs} runs`}`,
    '',
    `${meta.startedAt} · Node ${meta.node} · ${meta.os} · ${meta.cpus} × ${meta.cpuModel}` +
      (meta.targetConditions ? '' : " · **not the targets' conditions (64 connections, 10 s, full data, three runs): verdicts are indicative**"),
    '',
  ];
  if (meta.service) {
    lines.push(
      `- Service: \`${meta.service.command}\` with ${Object.entries(meta.service.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}; logs: ${meta.service.logs}.`,
    );
  }
  lines.push(
    `- Load: ${meta.loadGenerator ?? 'wrk'}; ` +
      (meta.pinning
        ? `the servers (and pgbench) on core ${meta.pinning.server}, wrk on core ${meta.pinning.loadGenerator}; PostgreSQL, Redis and nginx unpinned.`
        : 'nothing pinned (taskset or a second core is missing): the servers and wrk share the cores.'),
    `- Baseline, hello world with the service's logging: ${baselineText(report.baseline)}. Each scenario is divided by the mean of this hello world measured just before and just after it ("× hello").`,
  );
  if (report.bareBaseline) {
    lines.push(`- Hello world without logging: ${baselineText(report.bareBaseline)}; measured at the start and the end of each round ("× no-log").`);
  }
  if (report.anchors) lines.push(`- ${anchorsText(report.anchors)}`);
  lines.push(
    '',
    `| scenario | throughput | p50 ms | p99 ms | × hello | × no-log${pg ? ' | × pgbench -N' : ''} | target | verdict | runs | peak RSS MiB | service thread CPU | wrk CPU | longest stall |`,
    `|---|---:|---:|---:|---:|---:|${pg ? '---:|' : ''}---|---|---|---:|---:|---:|---|`,
  );
  for (const r of report.results) {
    if (!r.measured) {
      lines.push(`| ${r.label} | ${r.status} | | | | |${pg ? ' |' : ''} ${describeTarget(r.target)} | ${verdict(r.pass)} | | | | | |`);
      continue;
    }
    const m = r.measured;
    const flag = r.status === 'errors' ? ` (${r.detail})` : '';
    lines.push(
      `| ${r.label} | ${num(m.perSecond)} ${unitText(r.unit)}${flag} | ${num(m.p50Ms, 1)} | ${num(m.p99Ms, 1)} | ${ratioText(m.ratio)} | ${ratioText(m.ratioBare)} |` +
        `${pg ? ` ${r.kind === 'write' ? ratioText(m.ratioPgbenchN) : ''} |` : ''} ${describeTarget(r.target)} | ${verdict(r.pass)} | ${runsCell(r)} | ${num(m.peakRssMb)} | ` +
        (m.cpu ? `${cpuCell(m.cpu, r.unit)} | ${num(m.cpu.loadGeneratorPct)} % |` : '— | — |') +
        ` ${stallText(m.stalls)} |`,
    );
  }
  const mix = report.loginMix;
  lines.push('');
  if (mix.leaderboard) {
    lines.push(
      `GET /leaderboard while logins run at full speed (${num(mix.loginsPerSecond ?? 0, 1)} logins/s): ` +
        `${num(mix.leaderboard.perSecond)} req/s, p50 ${num(mix.leaderboard.p50Ms, 1)} ms, p99 ${num(mix.leaderboard.p99Ms, 1)} ms ` +
        `(target ${describeTarget(mix.target)}), longest stall ${stallText(mix.leaderboard.stalls)}: ${verdict(mix.pass)}.`,
    );
  } else {
    lines.push(`GET /leaderboard while logins run at full speed: ${mix.status}${mix.detail ? ` (${mix.detail})` : ''}: ${verdict(mix.pass)}.`);
  }
  if (report.fanOut) lines.push('', ...fanOutTable(report.fanOut));
  if (report.triggers) lines.push('', ...triggersTable(report.triggers));
  lines.push(
    '',
    `Server peak RSS (VmHWM): ${num(report.memory.peakRssMb)} MiB (target ≤ ${report.memory.targetMb} MiB): ${verdict(report.memory.pass)}.`,
  );
  if (report.scaleOut) lines.push('', ...scaleOutTable(report.scaleOut));
  const notes = report.results.filter((r) => r.note).map((r) => `- ${r.label}: ${r.note}.`);
  for (const r of report.results) {
    if (r.measured?.outbox && r.measured.outbox.pendingAtStart > 0)
      notes.push(`- ${r.label}: the outbox afterwards: ${outboxText(r.measured.outbox)}.`);
  }
  for (const r of report.results) {
    const waited = checkpointWaitText(r.measured?.stalls);
    if (waited) notes.push(`- ${r.label}: ${waited} (over every run; the WAL had outrun the checkpoint worker, src/db/checkpointer.ts).`);
  }
  for (const r of report.results) {
    if (!r.bodyCeiling) continue;
    const c = r.bodyCeiling;
    notes.push(
      `- ${r.label}: its answer is ${num(c.bodyBytes)} bytes; the hello world sending a body of that size reaches ` +
        `${num(c.requestsPerSecond)} req/s = ${num(c.ratio, 2)}× hello (what moving that many bytes costs here, before any work of ours)` +
        (r.answerCeiling
          ? `; replaying its exact answer, with the ${r.answerCeiling.headers} headers it sends, ${num(r.answerCeiling.requestsPerSecond)} req/s = ` +
            `${num(r.answerCeiling.ratio, 2)}× hello.`
          : '.'),
    );
  }
  if (report.results.some((r) => r.measured?.cpu)) {
    notes.push(
      "- CPU columns: % of one core over the run, the service's from /proc, wrk's from its resource usage; and the CPU the " +
        "service's main thread spent a request or pair, beside the hello world's a request in its paired runs. A service " +
        'thread near 100 % means the service was the limit; wrk near 100 % with the service thread below it means the load generator was.',
    );
  }
  if (report.results.some((r) => r.measured?.stalls)) {
    notes.push(
      "- Longest stall: the longest stretch over 20 ms in which the service's event loop ran nothing else, during the load, " +
        'and what it is charged to: a periodic job whose run overlapped it (job:<name>), garbage collection (gc), or else the ' +
        "requests; with the number of such stalls (over every run). From the service's metrics, scraped before and after the load (docs/performance.md).",
    );
  }
  if (report.results.some((r) => r.measured?.logBytesPerRequest)) {
    const logged = report.results
      .filter((r) => r.measured?.logBytesPerRequest)
      .map((r) => `${r.key} ${num(r.measured!.logBytesPerRequest!)}`)
      .join(', ');
    notes.push(`- Log bytes the service wrote a request: ${logged}.`);
  }
  if (notes.length) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}

export function anchorsText(a: Anchors): string {
  if (a.status !== 'ok' || !a.pgbenchN || !a.pgbenchS) return `pgbench anchors: ${a.status}${a.detail ? ` (${a.detail})` : ''}.`;
  const runs = (f: AnchorFigures) => f.runs.map((r) => num(r.tps)).join(' / ');
  return (
    `Anchors on the same PostgreSQL server (scale ${a.scale}, ${a.clients} clients = the service's pool, pinned to the service's core): ` +
    `\`pgbench -N\` ${num(a.pgbenchN.tps)} tps (runs: ${runs(a.pgbenchN)}), \`pgbench -S\` ${num(a.pgbenchS.tps)} tps (runs: ${runs(a.pgbenchS)}). ` +
    'Every write figure is also divided by the round\'s `pgbench -N` ("× pgbench -N").'
  );
}

function fanOutTable(f: FanOutResult): string[] {
  if (f.status === 'skipped') return [`Fan-out: skipped${f.detail ? ` (${f.detail})` : ''}.`];
  const rows = f.steps.map((s) => {
    const delivered = !s.delivered
      ? '—'
      : s.delivered.pendingAtStart === 0
        ? 'nothing queued'
        : s.delivered.seconds === null
          ? `${num(s.delivered.pendingLeft)} of ${num(s.delivered.pendingAtStart)} still pending`
          : `${num(s.delivered.pendingAtStart)} in ${num(s.delivered.seconds, 1)} s`;
    return `| ${num(s.followers)} | ${s.failed ? `failing: ${s.failed}` : num(s.medianOpenMs, 1)} | ${s.openMs.map((x) => num(x, 1)).join(' / ')} | ${delivered} |`;
  });
  return [
    `Fan-out: one trader opens a bet (then closes it), ${f.opensEach} times in a row, the service otherwise idle; its followers all have linked chats.`,
    '',
    '| followers | open, median ms | every open, ms | notices of the last open + close, delivered |',
    '|---:|---:|---|---|',
    ...rows,
  ];
}

function scaleOutTable(s: ScaleOutResult): string[] {
  if (s.status === 'skipped') return [`Scale-out run skipped: ${s.detail}.`];
  const cell = (r: ScenarioResult | undefined) =>
    !r?.measured
      ? (r?.status ?? '—')
      : `${num(r.measured.perSecond)} ${unitText(r.unit)}, p99 ${num(r.measured.p99Ms, 1)} ms${r.status === 'errors' ? ` (${r.detail})` : ''}`;
  const hello = s.nginxHello ? `${num(s.nginxHello.requestsPerSecond)} req/s` : '—';
  const bare = s.nginxBareHello ? `${num(s.nginxBareHello.requestsPerSecond)} req/s` : '—';
  return [
    `Scale-out: ${s.instances} instances (both on the service's core) behind nginx (deploy/nginx/paper-bets.conf) on the same database. ` +
      `Every request 2xx: ${s.all2xx ? 'yes' : 'NO'}. Hello world through the same nginx without a cache: ${hello} with the service's logging, ${bare} without.`,
    '',
    `| scenario | one instance | ${s.instances} instances behind nginx | × hello via nginx | target | verdict |`,
    '|---|---:|---:|---:|---|---|',
    ...s.results.map(
      (r) =>
        `| ${r.label} | ${cell(s.single.find((x) => x.key === r.key))} | ${cell(r)} | ${r.sharedPublic ? ratioText(r.measured?.ratioNginxHello) : ''} | ` +
        `${r.sharedPublic ? describeTarget(r.target) : ''} | ${r.sharedPublic ? verdict(r.pass) : ''} |`,
    ),
  ];
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A horizontal bar per endpoint: green meets its target, red misses it, blue has none, grey is a baseline. */
export function svgChart(report: Report): string {
  const rows: Array<{ label: string; value: number | null; text: string; color: string; targetValue?: number }> = [
    {
      label: 'hello world, service logging',
      value: report.baseline.requestsPerSecond,
      text: `${num(report.baseline.requestsPerSecond)} req/s`,
      color: '#757575',
    },
  ];
  if (report.bareBaseline) {
    rows.push({
      label: 'hello world, no logging',
      value: report.bareBaseline.requestsPerSecond,
      text: `${num(report.bareBaseline.requestsPerSecond)} req/s`,
      color: '#9e9e9e',
    });
  }
  for (const r of report.results) {
    if (!r.measured) {
      rows.push({ label: r.label, value: null, text: r.status, color: r.pass === false ? '#c62828' : '#9e9e9e' });
      continue;
    }
    const m = r.measured;
    const color = r.status === 'errors' || r.pass === false ? '#c62828' : r.pass ? '#2e7d32' : '#1565c0';
    const minRatio = r.target?.minRatio;
    const against = r.target?.against ?? 'hello';
    const base = against === 'pgbench-N' ? m.pgbenchNTps : against === 'nginx-hello' ? m.nginxHelloRps : m.baselineRps;
    rows.push({
      label: r.label,
      value: m.perSecond,
      text: `${num(m.perSecond)} ${unitText(r.unit)} (${judgedRatio(r, m)})`,
      color,
      ...(minRatio !== undefined && base ? { targetValue: minRatio * base } : {}),
    });
  }
  const labelW = 420;
  const barW = 420;
  const rowH = 26;
  const top = 48;
  const width = labelW + barW + 260;
  const height = top + rows.length * rowH + 40;
  const max = Math.max(1, ...rows.map((r) => Math.max(r.value ?? 0, r.targetValue ?? 0)));
  const { meta } = report;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="bold">${escapeXml(
      `Throughput per endpoint: ${meta.dialect}, ${meta.size} data, ${meta.connections} connections × ${meta.durationS} s`,
    )}</text>`,
  ];
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    out.push(`<text x="${labelW - 8}" y="${y + 16}" text-anchor="end">${escapeXml(row.label)}</text>`);
    if (row.value === null) {
      out.push(`<text x="${labelW + 4}" y="${y + 16}" fill="${row.color}" font-style="italic">${escapeXml(row.text)}</text>`);
      return;
    }
    const w = Math.max(2, Math.round((row.value / max) * barW));
    out.push(`<rect x="${labelW}" y="${y + 4}" width="${w}" height="${rowH - 8}" fill="${row.color}"/>`);
    let textX = labelW + w + 6;
    if (row.targetValue !== undefined) {
      const x = labelW + Math.round((row.targetValue / max) * barW);
      out.push(`<line x1="${x}" y1="${y + 1}" x2="${x}" y2="${y + rowH - 1}" stroke="#000000" stroke-width="2" stroke-dasharray="3,2"/>`);
      textX = Math.max(textX, x + 6);
    }
    out.push(`<text x="${textX}" y="${y + 16}">${escapeXml(row.text)}</text>`);
  });
  out.push(
    `<text x="12" y="${height - 12}" fill="#555555">green: meets its target · red: misses it · blue: no target · dashed line: the throughput target (ratio × what it divides by)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Writes <stamp>-<dialect>-<size>.{json,md,svg} into dir; returns the paths. */
export function writeReport(report: Report, dir: string): { json: string; md: string; svg: string } {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = report.meta.startedAt.replace(/[:.]/g, '-');
  const base = path.join(dir, `${stamp}-${report.meta.dialect}-${report.meta.size}`);
  const files = { json: `${base}.json`, md: `${base}.md`, svg: `${base}.svg` };
  fs.writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(files.md, markdown(report));
  fs.writeFileSync(files.svg, svgChart(report));
  return files;
}
