// The suite's report: JSON (everything), a short Markdown table and an SVG
// bar chart of throughput per endpoint, all under bench/results/.
import fs from 'node:fs';
import path from 'node:path';
import type { GenerateSummary } from './generate.js';
import type { CpuUse } from './server.js';
import { describeTarget, type Target } from './targets.js';

export type ScenarioStatus = 'ok' | 'errors' | 'failing' | 'skipped';

export interface Measured {
  /** Units (requests, or pairs) per second. */
  perSecond: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** perSecond / baselineRps. */
  ratio: number;
  /**
   * The hello-world server's requests per second measured the same way just
   * before this scenario (paired, so drift in the machine's speed over the
   * run does not move the ratio).
   */
  baselineRps: number;
  peakRssMb: number;
  /** How often the server ran on the load generator's core during the run, in % of samples (server.ts, withSampling). */
  sharedCorePct?: number | null;
  /**
   * Where the CPU went during the run (server.ts, withSampling), in % of one
   * core, and the server's main-thread CPU per unit (µs a request, or a pair):
   * the server's thread near 100 % means the service was the limit, the load
   * generator near 100 % means autocannon was. Beside it the hello world's
   * main-thread CPU a request in its paired runs, where /proc told.
   */
  cpu?: (CpuUse & { serverMicrosPerUnit: number; baselineMicrosPerRequest?: number | null }) | null;
  statusCounts: Record<string, number>;
  errors: number;
}

export interface ScenarioResult {
  key: string;
  label: string;
  unit: 'request' | 'pair';
  status: ScenarioStatus;
  /** Why it is not ok: the probe's answer, or the counts of failed requests. */
  detail?: string;
  note?: string;
  target: Target | null;
  pass: boolean | null;
  measured?: Measured;
  /**
   * Measured only when a read misses its throughput target: the bare
   * hello-world server sending a body of this endpoint's size, to tell a
   * cost of ours from the cost of moving that many bytes on this machine.
   */
  bodyCeiling?: { bodyBytes: number; requestsPerSecond: number; ratio: number };
  /**
   * Measured with bodyCeiling: the same bare server replaying the endpoint's
   * exact answer, its body and the headers it sends (`headers` of them beside
   * those Node adds to every answer): what any server here reaches answering
   * with exactly that, so the load generator's cost of reading it shows.
   */
  answerCeiling?: { headers: number; requestsPerSecond: number; ratio: number };
}

export interface LoginMixResult {
  status: ScenarioStatus;
  detail?: string;
  target: Target;
  pass: boolean | null;
  leaderboard?: Measured;
  loginsPerSecond?: number;
}

export interface ScaleOutResult {
  status: 'ok' | 'skipped';
  detail?: string;
  instances: number;
  /** The same scenarios through nginx; memory figures are the instances' together. */
  results: ScenarioResult[];
  /** One instance's results, for the side-by-side table. */
  single: ScenarioResult[];
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
    quick: boolean;
    /** The scenarios `--only` chose; null (or absent, in reports before it was recorded) when every one ran. */
    only?: string[] | null;
    /** True when the run matches the conditions the targets are stated for. */
    targetConditions: boolean;
    dataset: GenerateSummary | { reused: string };
  };
  baseline: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
  results: ScenarioResult[];
  loginMix: LoginMixResult;
  memory: { peakRssMb: number; targetMb: number; pass: boolean };
  scaleOut?: ScaleOutResult;
}

const num = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Microseconds of CPU: a decimal below 100, whole with separators above ("13.9", "2,435"). */
export const formatMicros = (n: number) => num(n, n < 100 ? 1 : 0);

/** The login mix's detail when `--only` left it out: how reports from before `meta.only` tell a partial run. */
export const NOT_IN_ONLY = 'not in --only';
const verdict = (pass: boolean | null) => (pass === null ? '—' : pass ? 'pass' : 'FAIL');

/** From this share of samples on, a run is flagged: the server mostly waited for the load generator's core. */
const SHARED_CORE_FLAG_PCT = 50;
const sharedCore = (m: Measured | undefined): number | null => {
  const pct = m?.sharedCorePct ?? null;
  return pct !== null && pct >= SHARED_CORE_FLAG_PCT ? pct : null;
};

export function resultLine(r: ScenarioResult): string {
  const head = r.label.padEnd(46);
  if (!r.measured) return `${head} ${r.status}${r.detail ? `: ${r.detail}` : ''}`;
  const m = r.measured;
  const unit = r.unit === 'pair' ? 'pairs/s' : 'req/s';
  return (
    `${head} ${num(m.perSecond).padStart(7)} ${unit.padEnd(7)} p50 ${num(m.p50Ms, 1).padStart(6)} ms  p99 ${num(m.p99Ms, 1).padStart(6)} ms  ` +
    `${num(m.ratio, 2)}×   target ${describeTarget(r.target)}: ${verdict(r.pass)}` +
    (r.status === 'errors' ? `   [${r.detail}]` : '') +
    (r.bodyCeiling ? `   [bare server, same ${num(r.bodyCeiling.bodyBytes)}-byte body: ${num(r.bodyCeiling.ratio, 2)}×` : '') +
    (r.answerCeiling ? `; same answer with its ${r.answerCeiling.headers} headers: ${num(r.answerCeiling.ratio, 2)}×` : '') +
    (r.bodyCeiling ? ']' : '') +
    (sharedCore(m) !== null ? `   [on the load generator's core ${num(sharedCore(m)!)} % of the time]` : '') +
    (m.cpu ? `   [CPU: service thread ${cpuCell(m.cpu, r.unit)}; load generator ${num(m.cpu.loadGeneratorPct)} %]` : '')
  );
}

/** The service thread's share of a core and its CPU per unit, e.g. "91 %, 215 µs a pair". */
function cpuCell(cpu: NonNullable<Measured['cpu']>, unit: ScenarioResult['unit']): string {
  const hello = cpu.baselineMicrosPerRequest;
  return (
    `${num(cpu.serverThreadPct)} %, ${formatMicros(cpu.serverMicrosPerUnit)} µs a ${unit}` +
    (hello !== undefined && hello !== null ? ` (hello world ${formatMicros(hello)})` : '')
  );
}

export function markdown(report: Report): string {
  const { meta, baseline } = report;
  const lines = [
    `# Benchmark: ${meta.dialect}, ${meta.size} data, ${meta.connections} connections × ${meta.durationS} s`,
    '',
    `${meta.startedAt} · Node ${meta.node} · ${meta.os} · ${meta.cpus} × ${meta.cpuModel}` +
      (meta.targetConditions ? '' : " · **not the targets' conditions (64 connections, 10 s, SQLite, full data): verdicts are indicative**"),
    '',
    `Baseline (bare Fastify hello world): ${num(baseline.requestsPerSecond)} req/s, p50 ${num(baseline.p50Ms, 1)} ms, p99 ${num(baseline.p99Ms, 1)} ms ` +
      'at the start; each endpoint is divided by the mean of the hello world measured just before and just after it ' +
      '(the "hello" column), since the machine\'s speed drifts over a run.',
    '',
    '| endpoint | throughput | p50 ms | p99 ms | hello req/s | × hello | target | verdict | peak RSS MiB | service thread CPU | load generator CPU |',
    '|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|',
  ];
  for (const r of report.results) {
    if (!r.measured) {
      lines.push(`| ${r.label} | ${r.status} | | | | | ${describeTarget(r.target)} | ${verdict(r.pass)} | | | |`);
      continue;
    }
    const m = r.measured;
    const flag = r.status === 'errors' ? ` (${r.detail})` : '';
    lines.push(
      `| ${r.label} | ${num(m.perSecond)} ${r.unit === 'pair' ? 'pairs/s' : 'req/s'}${flag} | ${num(m.p50Ms, 1)} | ${num(m.p99Ms, 1)} | ${num(m.baselineRps)} | ${num(m.ratio, 2)} | ` +
        `${describeTarget(r.target)} | ${verdict(r.pass)} | ${num(m.peakRssMb)} | ` +
        (m.cpu ? `${cpuCell(m.cpu, r.unit)} | ${num(m.cpu.loadGeneratorPct)} % |` : '— | — |'),
    );
  }
  const mix = report.loginMix;
  lines.push('');
  if (mix.leaderboard) {
    lines.push(
      `GET /leaderboard while logins run at full speed (${num(mix.loginsPerSecond ?? 0, 1)} logins/s): ` +
        `${num(mix.leaderboard.perSecond)} req/s, p99 ${num(mix.leaderboard.p99Ms, 1)} ms (target ≤ ${mix.target.maxP99Ms} ms): ${verdict(mix.pass)}.`,
    );
  } else {
    lines.push(`GET /leaderboard while logins run at full speed: ${mix.status}${mix.detail ? ` (${mix.detail})` : ''}: ${verdict(mix.pass)}.`);
  }
  lines.push(
    '',
    `Server peak RSS (VmHWM): ${num(report.memory.peakRssMb)} MiB (target < ${report.memory.targetMb} MiB): ${verdict(report.memory.pass)}.`,
  );
  if (report.scaleOut) lines.push('', ...scaleOutTable(report.scaleOut));
  const notes = report.results.filter((r) => r.note).map((r) => `- ${r.label}: ${r.note}.`);
  for (const r of report.results) {
    if (!r.bodyCeiling) continue;
    const c = r.bodyCeiling;
    notes.push(
      `- ${r.label}: its answer is ${num(c.bodyBytes)} bytes; the bare hello-world server sending a body of that size reaches ` +
        `${num(c.requestsPerSecond)} req/s = ${num(c.ratio, 2)}× hello (what moving that many bytes costs here, before any work of ours)` +
        (r.answerCeiling
          ? `; replaying its exact answer, with the ${r.answerCeiling.headers} headers it sends, ${num(r.answerCeiling.requestsPerSecond)} req/s = ` +
            `${num(r.answerCeiling.ratio, 2)}× hello.`
          : '.'),
    );
  }
  const shared = [...report.results.map((r) => ({ label: r.label, m: r.measured })), { label: 'GET /leaderboard during logins', m: mix.leaderboard }]
    .filter((x) => sharedCore(x.m) !== null)
    .map((x) => `${x.label} (${num(sharedCore(x.m)!)} %)`);
  if (shared.length) {
    notes.push(
      `- The service ran on the load generator's core for most of: ${shared.join(', ')}. There it waits for that core ` +
        'and its figures drop (README, Performance): compare with another run.',
    );
  }
  if (report.results.some((r) => r.measured?.cpu)) {
    notes.push(
      "- CPU columns: % of one core over the run (from /proc and the load generator's own usage), and the CPU the " +
        "service's thread spent a request or pair, beside the hello world's a request in its paired runs. A service " +
        'thread near 100 % means the service was the limit; a load generator near 100 % with the service thread below ' +
        'it means autocannon was.',
    );
  }
  if (notes.length) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}

function scaleOutTable(s: ScaleOutResult): string[] {
  if (s.status === 'skipped') return [`Scale-out run skipped: ${s.detail}.`];
  const cell = (r: ScenarioResult | undefined) =>
    !r?.measured
      ? (r?.status ?? '—')
      : `${num(r.measured.perSecond)} ${r.unit === 'pair' ? 'pairs/s' : 'req/s'}, p99 ${num(r.measured.p99Ms, 1)} ms${r.status === 'errors' ? ` (${r.detail})` : ''}`;
  return [
    `Scale-out: ${s.instances} instances behind nginx on the same database (with few cores no gain is expected: the run shows the deployment works under load).`,
    '',
    `| endpoint | one instance | ${s.instances} instances behind nginx |`,
    '|---|---:|---:|',
    ...s.results.map((r) => `| ${r.label} | ${cell(s.single.find((x) => x.key === r.key))} | ${cell(r)} |`),
  ];
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A horizontal bar per endpoint: green meets its target, red misses it, blue has none, grey is the baseline. */
export function svgChart(report: Report): string {
  const rows: Array<{ label: string; value: number | null; text: string; color: string; targetValue?: number }> = [
    {
      label: 'hello world (baseline)',
      value: report.baseline.requestsPerSecond,
      text: `${num(report.baseline.requestsPerSecond)} req/s`,
      color: '#757575',
    },
  ];
  for (const r of report.results) {
    if (!r.measured) {
      rows.push({ label: r.label, value: null, text: r.status, color: r.pass === false ? '#c62828' : '#9e9e9e' });
      continue;
    }
    const color = r.status === 'errors' || r.pass === false ? '#c62828' : r.pass ? '#2e7d32' : '#1565c0';
    const unit = r.unit === 'pair' ? 'pairs/s' : 'req/s';
    const minRatio = r.target?.minRatio;
    rows.push({
      label: r.label,
      value: r.measured.perSecond,
      text: `${num(r.measured.perSecond)} ${unit} (${num(r.measured.ratio, 2)}×)`,
      color,
      ...(minRatio !== undefined ? { targetValue: minRatio * r.measured.baselineRps } : {}),
    });
  }
  const labelW = 360;
  const barW = 420;
  const rowH = 26;
  const top = 48;
  const width = labelW + barW + 190;
  const height = top + rows.length * rowH + 40;
  const max = Math.max(1, ...rows.map((r) => r.value ?? 0));
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
    `<text x="12" y="${height - 12}" fill="#555555">green: meets its target · red: misses it · blue: no target · dashed line: the throughput target (ratio × baseline)</text>`,
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
