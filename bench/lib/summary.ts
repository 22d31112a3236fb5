// Several reports folded into one table: the median of repeated SQLite runs
// beside PostgreSQL's, in the shape of README's Performance table.
import { meets, describeTarget, type Target } from './targets.js';
import { formatMicros, NOT_IN_ONLY, type Report } from './report.js';

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Whether a report measured every scenario: a `--only` run (a profile, one endpoint retried) is not one of
 * the runs a summary folds. Reports from before `meta.only` was recorded tell by their login mix, skipped
 * under `--only` unless chosen.
 */
export function isWholeRun(report: Report): boolean {
  if (report.meta.only !== undefined) return report.meta.only === null;
  return !(report.loginMix.status === 'skipped' && report.loginMix.detail === NOT_IN_ONLY);
}

interface Cell {
  perSecond: number;
  ratio: number;
  p99Ms: number;
  pass: boolean | null;
}

function cellOf(reports: Report[], key: string): Cell | string {
  const rows = reports.map((r) => (key === 'login-mix' ? r.loginMix : r.results.find((x) => x.key === key)));
  const measured = rows.map((r) => (r && 'measured' in r ? r.measured : r && 'leaderboard' in r ? r.leaderboard : undefined));
  if (rows.some((r) => r?.status === 'errors')) return 'errors';
  if (measured.some((m) => m === undefined)) return rows.find((r) => r && r.status !== 'ok')?.status ?? 'not measured';
  const ms = measured as NonNullable<(typeof measured)[number]>[];
  const target = rows[0]!.target as Target | null;
  const cell = { perSecond: median(ms.map((m) => m.perSecond)), ratio: median(ms.map((m) => m.ratio)), p99Ms: median(ms.map((m) => m.p99Ms)) };
  return { ...cell, pass: meets(target, cell.ratio, cell.p99Ms) };
}

function show(cell: Cell | string, unit: string): string {
  if (typeof cell === 'string') return cell;
  const verdict = cell.pass === null ? '' : cell.pass ? ' ✓' : ' ✗';
  return `${Math.round(cell.perSecond).toLocaleString('en-US')} ${unit}, ${cell.ratio.toFixed(2)}×, p99 ${cell.p99Ms} ms${verdict}`;
}

/** A Markdown table: one column per group of reports (e.g. SQLite ×3, PostgreSQL ×1), medians within a group. */
export function summaryTable(groups: Array<{ title: string; reports: Report[] }>): string {
  const used = groups.filter((g) => g.reports.length > 0);
  if (used.length === 0) return 'No reports.\n';
  const first = used[0].reports[0];
  const head = `| endpoint | target | ${used.map((g) => `${g.title} (${g.reports.length === 1 ? 'one run' : `median of ${g.reports.length}`})`).join(' | ')} |`;
  const lines = [head, `|---|---|${used.map(() => '---|').join('')}`];
  for (const r of first.results) {
    const unit = r.unit === 'pair' ? 'pairs/s' : 'req/s';
    lines.push(`| ${r.label} | ${describeTarget(r.target)} | ${used.map((g) => show(cellOf(g.reports, r.key), unit)).join(' | ')} |`);
  }
  lines.push(
    `| GET /leaderboard during full-speed logins | ${describeTarget(first.loginMix.target)} | ${used.map((g) => show(cellOf(g.reports, 'login-mix'), 'req/s')).join(' | ')} |`,
  );
  lines.push(
    `| server peak RSS (largest of the runs) | < ${first.memory.targetMb} MiB | ${used
      .map((g) => {
        const peak = Math.max(...g.reports.map((r) => r.memory.peakRssMb));
        return `${Math.round(peak)} MiB ${peak < first.memory.targetMb ? '✓' : '✗'}`;
      })
      .join(' | ')} |`,
  );
  lines.push(
    `| hello-world baseline | | ${used.map((g) => `${Math.round(median(g.reports.map((r) => r.baseline.requestsPerSecond))).toLocaleString('en-US')} req/s`).join(' | ')} |`,
  );
  return `${lines.join('\n')}\n\n${cpuTable(used)}`;
}

/**
 * Where the CPU went (medians): the service's thread in % of a core and its CPU a request or pair beside the hello
 * world's, and the load generator's share: which side each scenario's limit was on.
 */
function cpuTable(groups: Array<{ title: string; reports: Report[] }>): string {
  const lines = [
    `| CPU (medians) | ${groups.map((g) => `${g.title}: service thread, its CPU a unit (hello world's a request); load generator`).join(' | ')} |`,
    `|---|${groups.map(() => '---|').join('')}`,
  ];
  for (const r of groups[0].reports[0].results) {
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
