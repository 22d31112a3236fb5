// Folds reports into one table: the median of the latest whole SQLite runs
// beside the latest whole PostgreSQL run (or the files named); `--only` runs are
// left out.
//   npm run bench:summary -- [--size full] [--runs 3] [--dir bench/results] [FILE.json …]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Report } from './lib/report.js';
import { isWholeRun, summaryTable } from './lib/summary.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: 'full' },
    runs: { type: 'string', default: '3' },
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
const chosen = positionals.length > 0 ? positionals.map(read) : null;
const groups = [
  { title: 'SQLite', reports: chosen ? chosen.filter((r) => r.meta.dialect === 'sqlite') : latest('sqlite', Number(values.runs)) },
  { title: 'PostgreSQL', reports: chosen ? chosen.filter((r) => r.meta.dialect === 'postgres') : latest('postgres', 1) },
];
const table = summaryTable(groups);
const out = path.join(values.dir!, `summary-${values.size}.md`);
fs.mkdirSync(values.dir!, { recursive: true });
fs.writeFileSync(out, table);
console.log(table);
console.log(`Written to ${out}`);
