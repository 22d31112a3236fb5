// Compiles the server (src/) to plain JavaScript: dist/server.cjs, one bundle
// of the server's modules and the packages they use, started by dist/main.js
// (scripts/server-entry.mjs: V8's code cache), with the data files copied
// into dist/ at their paths under src/. npm start runs it: no TypeScript
// loader in the running service (it costs about 50 MB of memory and a loader
// thread), and one file to read and compile instead of some seven hundred,
// which takes about a third off the time to the first answer. Tests run the
// sources. The operator's commands (npm run db:backup, db:copy, verify-log)
// are bundled the same way into dist/scripts/, so they run with plain node
// after a production install (npm ci --omit=dev).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ROOT as root, writeStamp } from './build-state.mjs';

const src = path.join(root, 'src');
const out = path.join(root, 'dist');
export const COMMANDS = ['db-backup', 'db-copy', 'verify-log'];

/**
 * Packages loaded from node_modules at run time rather than bundled: native
 * addons; packages that read files beside their own code (swagger-ui's pages,
 * the package.json that @fastify/swagger and ioredis read for their version);
 * pg's optional native driver; and the SDKs of outside services (Stripe,
 * Telegram), whose code paths run only against those services, as their
 * authors ship them. Each the server imports is one of package.json's dependencies.
 */
export const EXTERNAL = ['better-sqlite3', '@node-rs/argon2', '@fastify/swagger-ui', '@fastify/swagger', 'ioredis', 'pg-native', 'stripe', 'grammy'];

/**
 * In a bundle every module shares the bundle's import.meta.url; a module that
 * reads a file beside itself (new URL('./data/x.json', import.meta.url)) gets
 * instead the URL its own compiled file would have, where the data files are.
 */
function moduleUrls(outdir) {
  return {
    name: 'module-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        if (args.path.startsWith(src + path.sep) && contents.includes('import.meta.url')) {
          const compiled = path.join(out, path.relative(src, args.path)).replace(/\.ts$/, '.js');
          const rel = path.relative(outdir, compiled).split(path.sep).join('/');
          contents = contents.replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url).href`,
          );
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

function filesUnder(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

/**
 * Bundles `entries` (absolute .ts paths) into `outdir`, as ES modules, or with
 * `outfile` as one CommonJS script: what V8's code cache can take
 * (scripts/server-entry.mjs), its import.meta.url the bundle's own file URL.
 */
async function bundle(entries, outdir, outfile) {
  const commonjs = outfile !== undefined;
  await build({
    entryPoints: entries,
    ...(commonjs ? { outfile } : { outdir }),
    bundle: true,
    format: commonjs ? 'cjs' : 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    ...(commonjs
      ? { define: { 'import.meta.url': '__bundle_url' }, banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" } }
      : // The bundled CommonJS packages call require(); an ES module has none of its own.
        { banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" } }),
    plugins: [moduleUrls(outdir)],
    sourcemap: 'linked',
    // A smaller file to parse at every start (about 0.2 s of a 1 s start); names are kept, so
    // stack traces still say which function, and the linked source map gives the line.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}

export async function buildServer({ quiet = false } = {}) {
  const started = Date.now();
  fs.rmSync(out, { recursive: true, force: true });
  await bundle([path.join(src, 'main.ts')], out, path.join(out, 'server.cjs'));
  fs.copyFileSync(path.join(root, 'scripts', 'server-entry.mjs'), path.join(out, 'main.js'));
  await bundle(
    COMMANDS.map((name) => path.join(root, 'scripts', `${name}.ts`)),
    path.join(out, 'scripts'),
  );
  const data = filesUnder(src).filter((f) => !f.endsWith('.ts'));
  for (const f of data) {
    const to = path.join(out, path.relative(src, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  // Node reads dist/*.js as ES modules only under a package.json saying so (the root one does).
  writeStamp('server', started);
  if (!quiet)
    console.log(`Server built: dist/main.js, ${COMMANDS.length} commands in dist/scripts/, ${data.length} data files (${Date.now() - started} ms)`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer();
}
