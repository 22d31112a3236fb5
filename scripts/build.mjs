// Builds what npm start serves: the server (dist/, scripts/build-server.mjs)
// and the web app (web/dist/, Vite).
//
//   node scripts/build.mjs [server|web]    build (npm run build, build:server, build:web)
//   ... --if-stale                         only what changed since its last build (npm start, scripts/start.mjs)
//   ... --install                          the same, after npm install; when the build tools are
//                                          absent (npm ci --omit=dev) it says so in one line and exits 0
//   ... --quiet                            nothing printed when nothing is built
//
// A failed web build does not stop the server from starting: the API runs and
// the app's address says how to build it (src/http/web-app.ts).
import path from 'node:path';
import { missingTools, ROOT, staleReason, TARGETS, writeStamp } from './build-state.mjs';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const named = args.filter((a) => !a.startsWith('--'));
for (const a of [...flags]) {
  if (!['--if-stale', '--install', '--quiet'].includes(a)) usage(`unknown option ${a}`);
}
for (const n of named) if (!(n in TARGETS)) usage(`unknown target ${n}`);
const targets = named.length > 0 ? named : Object.keys(TARGETS);
const install = flags.has('--install');
const onlyStale = install || flags.has('--if-stale');
const quiet = flags.has('--quiet');

function usage(problem) {
  console.error(`${problem}\nusage: node scripts/build.mjs [server|web] [--if-stale|--install] [--quiet]`);
  process.exit(2);
}

async function buildServer() {
  const { buildServer: run } = await import('./build-server.mjs');
  await run();
}

async function buildWeb() {
  const started = Date.now();
  // What npm start serves is the production app (React's production build, the service worker
  // registered): Vite takes React's mode from NODE_ENV, which a caller may have set (the test
  // runner sets it to test), so it is set here.
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn' });
  writeStamp('web', started);
  console.log(`Web app built in web/dist/ (${Date.now() - started} ms)`);
}

const builders = { server: buildServer, web: buildWeb };
let failed = false;
const skipped = [];
for (const target of targets) {
  const reason = onlyStale ? staleReason(target) : 'asked for';
  if (reason === null) continue;
  const missing = missingTools(target);
  if (missing.length > 0) {
    const entry = TARGETS[target].entry;
    if (install) {
      skipped.push(...missing);
      continue;
    }
    const rebuild = 'npm install && npm run build';
    if (staleReason(target) === `${entry} is missing`) {
      console.error(`${entry} is missing and cannot be built here (${missing.join(', ')} not installed): run ${rebuild}.`);
      failed ||= target === 'server';
    } else if (onlyStale) {
      console.error(
        `The ${target} build is out of date (${reason}), and ${missing.join(', ')} is not installed: running it as built. To rebuild: ${rebuild}.`,
      );
    } else {
      console.error(`Cannot build the ${target}: ${missing.join(', ')} not installed; run npm install first.`);
      failed = true;
    }
    continue;
  }
  if (onlyStale && !quiet) console.log(`Building the ${target}: ${reason}.`);
  try {
    await builders[target]();
  } catch (err) {
    console.error(`The ${target} build failed: ${err instanceof Error ? err.message : err}`);
    if (target === 'web') {
      console.error('The API runs without the web app; build it with npm run build:web.');
      if (!onlyStale) failed = true;
    } else if (!install) {
      failed = true;
    }
  }
}
if (skipped.length > 0) {
  console.log(`No build: ${skipped.join(', ')} not installed (a production install; dist/ and web/dist/ come from a build).`);
}
process.exit(failed ? 1 : 0);
