// Whether the server build (dist/) and the web build (web/dist/) are current.
// Each build leaves a stamp: the time it started and a hash of the lock file.
// A build is stale when one of its sources changed after that time or the lock
// file differs (an update of a build tool, or of a package the web bundle
// holds). A check stats a few hundred files: a few milliseconds, so npm start
// can check on every start. Only node: modules here: it runs in a production
// install too, where the build tools are absent.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const TARGETS = {
  server: {
    output: 'dist',
    entry: 'dist/main.js',
    sources: [
      'src',
      'scripts/build-server.mjs',
      'scripts/server-entry.mjs',
      'scripts/db-backup.ts',
      'scripts/db-copy.ts',
      'scripts/verify-log.ts',
      'tsconfig.json',
    ],
    // The packages that build it; a production install has none of them.
    tools: ['esbuild'],
  },
  web: {
    output: 'web/dist',
    entry: 'web/dist/index.html',
    // src/domain: the one module the browser app takes from the server's code lives there.
    sources: ['web/src', 'web/index.html', 'web/public', 'web/vite.config.ts', 'web/tsconfig.json', 'src/domain'],
    tools: ['vite', '@vitejs/plugin-react'],
  },
};

const STAMP = '.build-stamp.json';
const LOCK = 'package-lock.json';

function lockHash() {
  try {
    return createHash('sha256')
      .update(fs.readFileSync(path.join(ROOT, LOCK)))
      .digest('hex');
  } catch {
    return null;
  }
}

/** The newest file under `paths` (files or folders, relative to the root) as [mtimeMs, path]. */
function newest(paths) {
  let best = [0, ''];
  const visit = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p)) visit(path.join(p, name));
    } else if (st.mtimeMs > best[0]) {
      best = [st.mtimeMs, p];
    }
  };
  for (const p of paths) visit(path.join(ROOT, p));
  return best;
}

/** Why `target` ('server' or 'web') needs building, or null when its build is current. */
export function staleReason(target) {
  const t = TARGETS[target];
  if (!fs.existsSync(path.join(ROOT, t.entry))) return `${t.entry} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(ROOT, t.output, STAMP), 'utf8'));
  } catch {
    return `${t.output}/ has no build stamp`;
  }
  const [mtime, file] = newest(t.sources);
  if (mtime > stamp.started) return `${path.relative(ROOT, file)} changed since the last build`;
  if (stamp.lock !== lockHash()) return `${LOCK} changed since the last build`;
  return null;
}

/** Records a build of `target` that started at `started` (ms since the epoch) and succeeded. */
export function writeStamp(target, started) {
  const file = path.join(ROOT, TARGETS[target].output, STAMP);
  fs.writeFileSync(file, `${JSON.stringify({ started, lock: lockHash() })}\n`);
}

/** The build tools of `target` that cannot be loaded from here (all of them after npm ci --omit=dev). */
export function missingTools(target) {
  return TARGETS[target].tools.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
