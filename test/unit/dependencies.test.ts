// `dependencies` are what the running server loads, and nothing else: a
// production install (npm ci --omit=dev) has exactly these. dist/main.js
// bundles most of them (scripts/build-server.mjs) and loads the rest from
// node_modules; all stay dependencies, so that what runs in production is
// what an audit of the production tree (npm audit --omit=dev) covers. The
// install itself is tested in test/long/production-install.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXTERNAL } from '../../scripts/build-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

function tsFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** The packages a module imports at run time (type-only imports vanish in the build). */
function packagesImported(source: string): string[] {
  const found = new Set<string>();
  // Static and dynamic imports, packages loaded on first use through createRequire(import.meta.url)('name'),
  // and those resolved there for a worker thread to load (createRequire(import.meta.url).resolve('name')).
  const specifier =
    /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\bcreateRequire\([^)]*\)(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of source.matchAll(specifier)) {
    if (m[2]) continue;
    const spec = m[3] ?? m[4] ?? m[5]!;
    if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
    found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return [...found];
}

test('the import scan sees value imports and skips type-only ones', () => {
  const source = [
    "import fastify from 'fastify';",
    "import type { Kysely } from 'kysely';",
    "import { type A, b } from '@scope/pkg/sub';",
    "export { x } from 'luxon';",
    "export type { Y } from 'pg';",
    "import './local.js';",
    "import fs from 'node:fs';",
    "import path from 'path';",
    "const m = await import('argon2');",
    "const sdk = createRequire(import.meta.url)('lazy-sdk') as typeof Sdk;",
    "const forWorker = createRequire(import.meta.url).resolve('@scope/native');",
    'import {\n  a,\n  b,\n} from "multi-line";',
  ].join('\n');
  assert.deepEqual(packagesImported(source).sort(), ['@scope/native', '@scope/pkg', 'argon2', 'fastify', 'lazy-sdk', 'luxon', 'multi-line']);
});

test('dependencies are exactly the packages the built server and its commands import', () => {
  const commands = ['db-backup', 'db-copy', 'verify-log'].map((c) => path.join('scripts', `${c}.ts`));
  const imported = new Map<string, string>();
  for (const file of [...tsFiles('src'), ...commands]) {
    for (const p of packagesImported(fs.readFileSync(path.join(ROOT, file), 'utf8'))) if (!imported.has(p)) imported.set(p, file);
  }
  const declared = Object.keys(pkg.dependencies);
  const missing = [...imported].filter(([p]) => !declared.includes(p)).map(([p, file]) => `${p} (${file})`);
  assert.deepEqual(missing, [], 'imported at run time but not in dependencies');
  const unused = declared.filter((p) => !imported.has(p));
  assert.deepEqual(unused, [], 'in dependencies but not imported by the server: move them to devDependencies');
});

test('the commands an operator runs use plain node and the compiled files, no TypeScript loader', () => {
  for (const name of ['start', 'db:backup', 'db:copy', 'verify-log']) {
    assert.doesNotMatch(pkg.scripts[name] ?? '', /\btsx\b|--import/, name);
    // npm start's file checks the build with node: modules only, then imports dist/main.js.
    assert.match(pkg.scripts[name] ?? '', name === 'start' ? /^node scripts\/start\.mjs$/ : /node dist\//, name);
  }
});

test('the packages the bundle leaves to node_modules are dependencies (pg-native is pg’s optional driver, never used)', () => {
  const missing = EXTERNAL.filter((p) => p !== 'pg-native' && !(p in pkg.dependencies));
  assert.deepEqual(missing, []);
});
