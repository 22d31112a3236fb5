// Compiles the server (src/) to plain JavaScript in dist/, one file per
// module, with the data files beside them at the same relative paths. npm
// start runs dist/main.js: no TypeScript loader in the running service (it
// costs about 50 MB of memory and a loader thread). Tests run the sources.
// The operator's commands (npm run db:backup, db:copy, verify-log) are
// compiled beside it into dist/scripts/, so they run with plain node after a
// production install (npm ci --omit=dev), which has no TypeScript loader.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ROOT as root, writeStamp } from './build-state.mjs';

const src = path.join(root, 'src');
const out = path.join(root, 'dist');
export const COMMANDS = ['db-backup', 'db-copy', 'verify-log'];

/**
 * The commands import the server's modules as ../src/X.js; in dist/scripts/
 * those are ../X.js. Every import stays an import (nothing is bundled), so a
 * module keeps one instance and reads its data files from its own place.
 */
const srcToDist = {
  name: 'src-to-dist',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.path.startsWith('../src/')) return { path: `../${args.path.slice('../src/'.length)}`, external: true };
      return { path: args.path, external: true };
    });
  },
};

function filesUnder(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

export async function buildServer({ quiet = false } = {}) {
  const started = Date.now();
  const files = filesUnder(src);
  const modules = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  fs.rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: modules,
    outdir: out,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Each module stays its own file: paths read next to a module (data files,
    // ../../web/dist) resolve as they do from src/.
    bundle: false,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    const to = path.join(out, path.relative(src, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  await build({
    entryPoints: COMMANDS.map((name) => path.join(root, 'scripts', `${name}.ts`)),
    outdir: path.join(out, 'scripts'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: true,
    plugins: [srcToDist],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // Node reads dist/*.js as ES modules only under a package.json saying so (the root one does).
  writeStamp('server', started);
  if (!quiet) console.log(`Server built: ${modules.length} modules and ${COMMANDS.length} commands in dist/ (${Date.now() - started} ms)`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer();
}
