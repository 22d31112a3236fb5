// Folds reports into the table docs/performance.md shows: the latest whole
// SQLite report beside the latest whole PostgreSQL report (each already the
// median of its runs), or the medians of the latest N of each, or the files
// named. `--only` runs are left out.
//   npm run bench:summary -- [--size full] [--runs 1] [--dir bench/results] [FILE.json …]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Report } from './lib/report.js';
import { isWholeRun, summaryTable } from './lib/summary.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: 'full' },
    runs: { type: 'string', default: '1' },
    dir: { type: 'string', default: 'bench/results' },
  },
});
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
const latest = (dialect: string, count: number) =>
  fs.existsSync(values.dir!)
    ? fs
        .readdirSync(values.dir!)
        .filter((f) => f.endsWith(`-${dialect}-${values.size}.json`))
        .sort()
        .map((f) => read(path.join(values.dir!, f)))
        .filter(isWholeRun)
        .slice(-count)
    : [];
const count = Number(values.runs);
if (!Number.isInteger(count) || count < 1) throw new Error(`--runs must be a positive integer, got "${values.runs}"`);
const chosen = positionals.length > 0 ? positionals.map(read) : null;
const groups = [
  { title: 'SQLite', reports: chosen ? chosen.filter((r) => r.meta.dialect === 'sqlite') : latest('sqlite', count) },
  { title: 'PostgreSQL', reports: chosen ? chosen.filter((r) => r.meta.dialect === 'postgres') : latest('postgres', count) },
];
const folded = groups.flatMap((g) => g.reports);
const table = summaryTable(groups);
const from = folded.map((r) => `${r.meta.startedAt} ${r.meta.dialect}${r.scaleOut?.status === 'ok' ? ' with scale-out' : ''}`).join('; ');
const text =
  `${table}\n` +
  (folded.length
    ? `From: ${from}. Reproduce: \`npm run bench\`, \`npm run bench -- --db postgres --scale-out\`, then \`npm run bench:summary\`.\n`
    : '');
const out = path.join(values.dir!, `summary-${values.size}.md`);
fs.mkdirSync(values.dir!, { recursive: true });
fs.writeFileSync(out, text);
console.log(text);
console.log(`Written to ${out}`);
