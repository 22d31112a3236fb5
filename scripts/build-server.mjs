// Compiles the server (src/) to plain JavaScript in dist/, one file per
// module, with the data files beside them at the same relative paths. npm
// start runs dist/main.js: no TypeScript loader in the running service (it
// costs about 50 MB of memory and a loader thread). Tests run the sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const out = path.join(root, 'dist');

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
  // Node reads dist/*.js as ES modules only under a package.json saying so (the root one does).
  if (!quiet) console.log(`Server built: ${modules.length} modules in dist/ (${Date.now() - started} ms)`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer();
}
