// Runs every test file under test/ (or the ones named) with Node's test runner.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const roots = args.length > 0 ? args : ['test'];
// The long suites (crash loops, thousands of fuzz cases) run only when named: npm run test:long.
const LONG = path.join('test', 'long');
const files = [];
for (const root of roots) {
  if (fs.statSync(root).isFile()) files.push(root);
  else
    for (const f of fs.readdirSync(root, { recursive: true }))
      if (String(f).endsWith('.test.ts')) {
        const file = path.join(root, String(f));
        if (args.length === 0 && file.startsWith(LONG + path.sep)) continue;
        files.push(file);
      }
}
files.sort();
if (!process.env.TEST_DATABASE_URL) {
  console.log('NOTE: TEST_DATABASE_URL is not set: PostgreSQL tests are skipped (SQLite runs always).');
}
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(r.status ?? 1);
