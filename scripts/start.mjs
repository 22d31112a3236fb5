// npm start: builds what is stale (as `node scripts/build.mjs --if-stale`
// would), then runs the server in this same process. One process instead of
// a prestart script and a second node: npm start answers sooner, and the
// server gets npm's signals directly.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, staleReason, TARGETS } from './build-state.mjs';

if (Object.keys(TARGETS).some((target) => staleReason(target) !== null)) {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import('../dist/main.js');
