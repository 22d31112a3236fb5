// Runs the test suites of a tier, a few processes at a time, several files a
// process (test/helpers/run-group.ts). Tiers are named by what they cost:
//
//   node scripts/run-tests.mjs --tier fast      npm run test:fast: test/unit (pure rules, services on a
//                                               context, SQLite files; no server, browser or child process)
//   node scripts/run-tests.mjs                  npm test: every suite that runs on SQLite (unit,
//                                               contract, integration, reliability; browser when Chromium is there)
//   node scripts/run-tests.mjs --tier servers   npm run test:servers: the PostgreSQL half of those suites,
//                                               and what needs Redis or nginx (TEST_DATABASE_URL, TEST_REDIS_URL)
//   node scripts/run-tests.mjs --tier long      npm run test:long: test/long (minutes of repetition, installs)
//   node scripts/run-tests.mjs FILE|DIR ...     those files, with whatever servers the environment names
//
// TEST_CONCURRENCY (default 2) sets how many processes run at once. Each
// file's wall time is kept in node_modules/.cache/ and balances the next
// run's groups; without it, a file's size stands in.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIERS = {
  fast: { roots: ['test/unit'], dialects: 'sqlite', servers: false, groups: 1 },
  default: {
    roots: ['test/unit', 'test/contract', 'test/integration', 'test/reliability', 'test/browser'],
    dialects: 'sqlite',
    servers: false,
    groups: 4,
  },
  servers: {
    roots: ['test/unit', 'test/contract', 'test/integration', 'test/reliability', 'test/browser', 'test/servers'],
    dialects: 'postgres',
    servers: true,
    groups: 4,
    // Only files with a PostgreSQL, Redis or nginx part; their SQLite suites are npm test's.
    only: (file, source) => file.startsWith(`test${path.sep}servers${path.sep}`) || /forEachDialect|PG_URL|REDIS_URL/.test(source),
  },
  long: { roots: ['test/long'], dialects: 'sqlite,postgres', servers: true, groups: Number.POSITIVE_INFINITY },
};
const GROUP_TIMEOUT_MS = 20 * 60_000;
const TIMINGS = path.join('node_modules', '.cache', 'paper-bets-test-times.json');

const args = process.argv.slice(2);
const tierAt = args.indexOf('--tier');
const tierName = tierAt >= 0 ? args[tierAt + 1] : 'default';
const named = tierAt >= 0 ? args.filter((_, i) => i !== tierAt && i !== tierAt + 1) : args;
const tier = named.length > 0 ? { roots: named, dialects: 'sqlite,postgres', servers: true, groups: 4 } : TIERS[tierName];
if (!tier) {
  console.error(`unknown tier ${tierName}: one of ${Object.keys(TIERS).join(', ')}`);
  process.exit(2);
}
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2));

const env = { ...process.env, NODE_ENV: 'test', TEST_DIALECTS: tier.dialects };
if (!tier.servers) {
  delete env.TEST_DATABASE_URL;
  delete env.TEST_REDIS_URL;
  console.log('NOTE: this tier runs on SQLite alone; the PostgreSQL and Redis suites run in npm run test:servers.');
} else if (!env.TEST_DATABASE_URL) {
  if (tierName === 'servers' && named.length === 0) {
    console.error('npm run test:servers needs TEST_DATABASE_URL (a PostgreSQL database) and TEST_REDIS_URL (see docs/ci.md).');
    process.exit(1);
  }
  console.log('NOTE: TEST_DATABASE_URL is not set: PostgreSQL tests are skipped (SQLite runs always).');
}
if (tierName === 'servers' && !env.TEST_REDIS_URL) console.log('NOTE: TEST_REDIS_URL is not set: the Redis suites are skipped.');

const files = [];
for (const root of tier.roots) {
  if (!fs.existsSync(root)) continue;
  if (fs.statSync(root).isFile()) files.push(root);
  else
    for (const f of fs.readdirSync(root, { recursive: true }))
      if (String(f).endsWith('.test.ts')) {
        const file = path.join(root, String(f));
        if (!tier.only || tier.only(file, fs.readFileSync(file, 'utf8'))) files.push(file);
      }
}
if (files.length === 0) {
  console.log('no test files');
  process.exit(0);
}

const known = fs.existsSync(TIMINGS) ? JSON.parse(fs.readFileSync(TIMINGS, 'utf8')) : {};
const costOf = (file) => known[`${tierName}:${file}`] ?? fs.statSync(file).size / 2;

// Longest first into the lightest group; groups start heaviest first.
const groupCount = Math.min(files.length, tier.groups === Number.POSITIVE_INFINITY ? files.length : Math.max(concurrency, tier.groups));
const groups = Array.from({ length: groupCount }, () => ({ files: [], cost: 0 }));
for (const file of [...files].sort((a, b) => costOf(b) - costOf(a))) {
  const lightest = groups.reduce((m, g) => (g.cost < m.cost ? g : m));
  lightest.files.push(file);
  lightest.cost += costOf(file);
}
groups.sort((a, b) => b.cost - a.cost);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-test-run-'));
const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0 };
const failedGroups = [];
/** The spec reporter's closing list of failures (with their errors) of each failed group, printed again last: a log's tail then says why. */
const failures = [];
const FAILURES_KEPT = 6_000;
const started = Date.now();

function runGroup(group, index) {
  return new Promise((resolve) => {
    const timingsFile = path.join(scratch, `times-${index}.json`);
    const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', 'test/helpers/run-group.ts'], {
      env: { ...env, TEST_GROUP_FILES: JSON.stringify(group.files.sort()), TEST_TIMINGS_FILE: timingsFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const groupStarted = Date.now();
    const timer = setTimeout(() => {
      output += `\nGROUP TIMED OUT after ${GROUP_TIMEOUT_MS / 60_000} min: killed\n`;
      child.kill('SIGKILL');
    }, GROUP_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = ((Date.now() - groupStarted) / 1000).toFixed(1);
      console.log(
        `\n── group ${index + 1}/${groups.length}: ${group.files.length} files, ${seconds} s${code === 0 ? '' : ` — FAILED (${signal ?? `exit ${code}`})`}`,
      );
      console.log(group.files.map((f) => `   ${f}`).join('\n'));
      process.stdout.write(output);
      for (const key of Object.keys(totals)) {
        const m = output.match(new RegExp(`^ℹ ${key} (\\d+)$`, 'm'));
        if (m) totals[key] += Number(m[1]);
      }
      if (code !== 0) {
        failedGroups.push(index + 1);
        const at = output.lastIndexOf('✖ failing tests:');
        const why = at >= 0 ? output.slice(at) : output.slice(-FAILURES_KEPT);
        failures.push(`group ${index + 1}: ${why.length > FAILURES_KEPT ? `${why.slice(0, FAILURES_KEPT)}\n…` : why}`);
      }
      if (fs.existsSync(timingsFile))
        for (const [file, ms] of Object.entries(JSON.parse(fs.readFileSync(timingsFile, 'utf8')))) known[`${tierName}:${file}`] = ms;
      resolve();
    });
  });
}

let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, groups.length) }, async () => {
    while (next < groups.length) {
      const i = next++;
      await runGroup(groups[i], i);
    }
  }),
);
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(path.dirname(TIMINGS), { recursive: true });
fs.writeFileSync(TIMINGS, JSON.stringify(known));

const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `\n══ ${tierName === 'default' && named.length === 0 ? 'npm test' : named.length > 0 ? 'named files' : `tier ${tierName}`}: ${files.length} files in ${groups.length} processes, ${seconds} s — ` +
    `${totals.tests} tests, ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped, ${totals.cancelled} cancelled`,
);
if (failedGroups.length > 0) {
  console.log(`\n${failures.join('\n')}`);
  console.log(`FAILED: group${failedGroups.length > 1 ? 's' : ''} ${failedGroups.join(', ')} (search the output above for ✖)`);
  process.exit(1);
}
