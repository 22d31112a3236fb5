// Reports folded into one table to paste into docs/performance.md: SQLite's
// column beside PostgreSQL's, each cell the median of the reports folded
// (each report's figures being already the medians of its own runs).
import { formatMicros, type Measured, NOT_IN_ONLY, type Report, type ScenarioResult } from './report.js';
import { median } from './stats.js';
import { describeTarget, meets, ratioFor, type Target } from './targets.js';

export { median } from './stats.js';

/**
 * Whether a report measured every scenario: a `--only` run (a profile, one endpoint retried) is not one of
 * the runs a summary folds. Reports from before `meta.only` was recorded tell by their login mix, skipped
 * under `--only` unless chosen.
 */
export function isWholeRun(report: Report): boolean {
  if (report.meta.only !== undefined) return report.meta.only === null;
  return !(report.loginMix.status === 'skipped' && report.loginMix.detail === NOT_IN_ONLY);
}

export interface Group {
  title: string;
  reports: Report[];
}

interface Cell {
  perSecond: number;
  ratio: number;
  ratioBare: number | null;
  judged: number | null;
  p99Ms: number;
  pass: boolean | null;
  target: Target | null;
}

const num = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function medianOf(values: Array<number | null | undefined>): number | null {
  const known = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
  return known.length === values.length && known.length > 0 ? median(known) : null;
}

function cellOf(rows: Array<{ status: string; target: Target | null; measured?: Measured } | undefined>): Cell | string {
  if (rows.every((r) => r === undefined)) return '';
  if (rows.some((r) => r?.status === 'errors')) return 'errors';
  const measured = rows.map((r) => r?.measured);
  if (measured.some((m) => m === undefined)) return rows.find((r) => r && r.status !== 'ok')?.status ?? 'not measured';
  const ms = measured as Measured[];
  const target = rows[0]!.target;
  const ratios = {
    ratio: median(ms.map((m) => m.ratio)),
    ratioPgbenchN: medianOf(ms.map((m) => m.ratioPgbenchN)),
    ratioNginxHello: medianOf(ms.map((m) => m.ratioNginxHello)),
    ratioBare: medianOf(ms.map((m) => m.ratioBare)),
    p50Ms: median(ms.map((m) => m.p50Ms)),
    baselineP99Ms: medianOf(ms.map((m) => m.baselineP99Ms)),
  };
  const p99Ms = median(ms.map((m) => m.p99Ms));
  return {
    perSecond: median(ms.map((m) => m.perSecond)),
    ratio: ratios.ratio,
    ratioBare: ratios.ratioBare,
    judged: ratioFor(target, ratios),
    p99Ms,
    pass: meets(target, ratios, p99Ms),
    target,
  };
}

function show(cell: Cell | string, unit: string): string {
  if (typeof cell === 'string') return cell;
  const mark = cell.pass === null ? '' : cell.pass ? ' ✓' : ' ✗';
  const against = cell.target?.against ?? 'hello';
  const judged =
    against === 'hello'
      ? `${cell.ratio.toFixed(2)}×`
      : against === 'pgbench-N'
        ? `${cell.judged === null ? '—' : cell.judged.toFixed(2)}× pgbench -N (${cell.ratio.toFixed(2)}× hello)`
        : `${cell.judged === null ? '—' : cell.judged.toFixed(2)}× hello via nginx`;
  const bare = cell.ratioBare === null ? '' : ` (no-log ${cell.ratioBare.toFixed(2)}×)`;
  return `${num(cell.perSecond)} ${unit}, ${judged}${against === 'hello' ? bare : ''}, p99 ${num(cell.p99Ms, 1)} ms${mark}`;
}

const unitOf = (r: ScenarioResult) => (r.unit === 'pair' ? 'pairs/s' : 'req/s');

function groupTitle(g: Group): string {
  const runs = g.reports[0]?.meta.runs ?? 1;
  const each = runs === 1 ? 'one run' : `median of ${runs} runs`;
  return g.reports.length === 1 ? `${g.title} (${each})` : `${g.title} (median of ${g.reports.length} reports, each ${each})`;
}

/** A Markdown table: per group of reports (SQLite, PostgreSQL) a target column and a figures column. */
export function summaryTable(groups: Group[]): string {
  const used = groups.filter((g) => g.reports.length > 0);
  if (used.length === 0) return 'No reports.\n';
  const lines = [
    `| scenario | ${used.map((g) => `${g.title} target | ${groupTitle(g)}`).join(' | ')} |`,
    `|---|${used.map(() => '---|---|').join('')}`,
  ];
  const row = (label: string, cells: Array<[string, string]>) => lines.push(`| ${label} | ${cells.map(([t, v]) => `${t} | ${v}`).join(' | ')} |`);
  // Every scenario any report measured, in the order the reports list them.
  const scenarios = new Map<string, ScenarioResult>();
  for (const g of used) for (const report of g.reports) for (const r of report.results) if (!scenarios.has(r.key)) scenarios.set(r.key, r);
  for (const [key, r] of scenarios) {
    row(
      r.label,
      used.map((g) => {
        const rows = g.reports.map((report) => report.results.find((x) => x.key === key));
        const first = rows.find((x) => x !== undefined);
        return [first ? describeTarget(first.target) : '', show(cellOf(rows), unitOf(r))];
      }),
    );
  }
  row(
    'GET /leaderboard during full-speed logins',
    used.map((g) => [
      describeTarget(g.reports[0]!.loginMix.target),
      show(cellOf(g.reports.map((r) => ({ ...r.loginMix, measured: r.loginMix.leaderboard }))), 'req/s'),
    ]),
  );
  const fanOutSteps = used.flatMap((g) => g.reports.flatMap((r) => r.fanOut?.steps.map((s) => s.followers) ?? []));
  if (fanOutSteps.length) {
    row(
      'fan-out: opening a bet, median ms, at 0 / mid / large linked followers',
      used.map((g) => {
        const steps = g.reports.map((r) => r.fanOut?.steps ?? []);
        if (steps.some((s) => s.length === 0)) return ['(reported)', 'not measured'];
        const cells = steps[0]!.map((s, i) => {
          const values = steps.map((list) => list[i]?.medianOpenMs);
          const known = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
          return `${num(s.followers)}: ${known.length === values.length ? `${num(median(known), 1)} ms` : 'failing'}`;
        });
        return ['(reported)', cells.join(', ')];
      }),
    );
  }
  row(
    'server peak RSS (largest of the reports)',
    used.map((g) => {
      const peak = Math.max(...g.reports.map((r) => r.memory.peakRssMb));
      const limit = g.reports[0]!.memory.targetMb;
      return [`≤ ${limit} MiB`, `${num(peak)} MiB ${peak <= limit ? '✓' : '✗'}`];
    }),
  );
  row(
    'hello world, the service’s logging / no logging',
    used.map((g) => {
      const logged = median(g.reports.map((r) => r.baseline.requestsPerSecond));
      const bare = medianOf(g.reports.map((r) => r.bareBaseline?.requestsPerSecond));
      return ['', `${num(logged)} / ${bare === null ? '—' : num(bare)} req/s`];
    }),
  );
  if (used.some((g) => g.reports.some((r) => r.anchors?.pgbenchN))) {
    row(
      'anchors: `pgbench -N` / `pgbench -S`',
      used.map((g) => {
        const n = medianOf(g.reports.map((r) => r.anchors?.pgbenchN?.tps));
        const s = medianOf(g.reports.map((r) => r.anchors?.pgbenchS?.tps));
        const clients = g.reports[0]!.anchors?.clients;
        return ['', n === null || s === null ? '' : `${num(n)} / ${num(s)} tps (${clients} clients)`];
      }),
    );
  }
  const scaled = used.flatMap((g) => g.reports.flatMap((r) => (r.scaleOut?.status === 'ok' ? r.scaleOut.results : [])));
  if (scaled.length) {
    row(
      'scale-out (2 instances behind nginx): every request 2xx',
      used.map((g) => {
        const outs = g.reports.map((r) => r.scaleOut).filter((s) => s?.status === 'ok');
        return outs.length ? ['yes', outs.every((s) => s!.all2xx) ? 'yes ✓' : 'no ✗'] : ['', ''];
      }),
    );
    const keys = [...new Set(scaled.filter((r) => r.sharedPublic).map((r) => r.key))];
    for (const key of keys) {
      const label = scaled.find((r) => r.key === key)!.label;
      row(
        `scale-out: ${label} through nginx's micro-cache`,
        used.map((g) => {
          const rows = g.reports.map((r) => r.scaleOut?.results.find((x) => x.key === key));
          if (rows.every((x) => x === undefined)) return ['', ''];
          const first = rows.find((x) => x !== undefined);
          return [describeTarget(first?.target ?? null), show(cellOf(rows), 'req/s')];
        }),
      );
    }
  }
  return `${lines.join('\n')}\n\n${cpuTable(used, [...scenarios.values()])}`;
}

/**
 * Where the CPU went (medians): the service's thread in % of a core and its CPU a request or pair beside the hello
 * world's, and the load generator's share: which side each scenario's limit was on.
 */
function cpuTable(groups: Group[], scenarios: ScenarioResult[]): string {
  const lines = [
    `| CPU (medians) | ${groups.map((g) => `${g.title}: service thread, its CPU a unit (hello world's a request); wrk`).join(' | ')} |`,
    `|---|${groups.map(() => '---|').join('')}`,
  ];
  for (const r of scenarios) {
    const cells = groups.map((g) => {
      const cpus = g.reports.map((report) => report.results.find((x) => x.key === r.key)?.measured?.cpu);
      if (cpus.some((c) => !c)) return '—';
      const cs = cpus as NonNullable<(typeof cpus)[number]>[];
      const hello = cs.map((c) => c.baselineMicrosPerRequest).filter((x): x is number => typeof x === 'number');
      return (
        `${Math.round(median(cs.map((c) => c.serverThreadPct)))} %, ${formatMicros(median(cs.map((c) => c.serverMicrosPerUnit)))} µs a ${r.unit}` +
        (hello.length ? ` (${formatMicros(median(hello))})` : '') +
        `; ${Math.round(median(cs.map((c) => c.loadGeneratorPct)))} %`
      );
    });
    lines.push(`| ${r.label} | ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
