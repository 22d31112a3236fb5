// The import rules of .dependency-cruiser.cjs: the checker refuses a tree built
// to break each of them (and accepts the imports they allow), and the real
// tree keeps them. The deliberate violations live in a temporary directory, so
// nothing is ever written into src/ while others build or lint it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = path.join(root, '.dependency-cruiser.cjs');
const depcruise = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Runs the checker as `npm run lint` does, in `cwd`, and returns what it refused. */
function cruise(cwd: string, targets: string[]): Promise<Violation[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [depcruise, ...targets, '--config', config, '--output-type', 'json'], { cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve((JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations);
      } catch {
        reject(new Error(`dependency-cruiser gave no report: ${err || out}`));
      }
    });
  });
}

function show(vs: Violation[]): string[] {
  const line = (v: Violation) =>
    // A cycle is reported once, from whichever of its modules the walk met first.
    v.rule.name === 'no-circular' ? `${v.rule.name}: ${[v.from, v.to].sort().join(' ↔ ')}` : `${v.rule.name}: ${v.from} → ${v.to}`;
  return vs.map(line).sort();
}

// Each file breaks one rule, or makes an import the rules allow (marked ok).
const FIXTURE: Record<string, string> = {
  'src/db/database.ts': 'export const db = 1;\n',
  'src/db/tables.ts': 'export type Row = { id: number };\n',
  'src/db/bad.ts': "import { r } from '../repositories/users.js';\nexport const x = r;\n",
  'src/repositories/users.ts': "import { db } from '../db/database.js';\nexport const r = db;\n", // ok
  'src/repositories/bad.ts': "import { s } from '../services/users.js';\nexport const x = s;\n",
  'src/services/users.ts': "import { r } from '../repositories/users.js';\nexport const s = r;\n", // ok
  'src/services/bad.ts': "import { v } from '../http/openapi.js';\nexport const x = v;\n",
  'src/http/openapi.ts': 'export const v = 1;\n',
  'src/routes/bad.ts': "import { db } from '../db/database.js';\nexport const x = db;\n",
  'src/routes/ok.ts': "import { s } from '../services/users.js';\nexport const x = s;\n", // ok
  'src/providers/bad.ts': "import type { Row } from '../db/tables.js';\nexport const x: Row = { id: 1 };\n",
  'src/schemas/shapes.ts': 'export const Shape = { type: "object" };\nexport type ShapeT = { a: number };\n',
  'src/domain/ok.ts': "import type { ShapeT } from '../schemas/shapes.js';\nexport const ok = (s: ShapeT) => s.a;\n", // ok
  'src/domain/bad-storage.ts': "import type { Row } from '../db/tables.js';\nexport const x = (r: Row) => r.id;\n",
  'src/domain/bad-schema.ts': "import { Shape } from '../schemas/shapes.js';\nexport const x = Shape;\n",
  'src/domain/bad-io.ts': "import fs from 'node:fs';\nexport const x = fs.readFileSync;\n",
  'src/domain/record-encoding.ts': "import { ok } from './ok.js';\nexport const x = ok;\n",
  'src/lib/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
  'src/lib/b.ts': "import { a } from './a.js';\nexport const b = () => a();\n",
  'src/lib/c.ts': "import { gone } from './missing.js';\nexport const c = gone;\n",
  'web/src/ok.ts': "import { x } from '../../src/domain/record-encoding.js';\nexport const y = x;\n", // ok
  'web/src/bad.ts': "import { ok } from '../../src/domain/ok.js';\nexport const y = ok;\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src', 'web'] }),
};

test('the checker refuses each kind of forbidden import and accepts the allowed ones', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layer-rules-'));
  try {
    for (const [file, text] of Object.entries(FIXTURE)) {
      fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const found = show(await cruise(dir, ['src', 'web/src']));
    assert.deepEqual(
      found,
      [
        'db-not-up: src/db/bad.ts → src/repositories/users.ts',
        'domain-no-io: src/domain/bad-io.ts → fs',
        'domain-schemas-type-only: src/domain/bad-schema.ts → src/schemas/shapes.ts',
        'domain-stays-inside: src/domain/bad-storage.ts → src/db/tables.ts',
        'no-circular: src/lib/a.ts ↔ src/lib/b.ts',
        'not-to-unresolvable: src/lib/c.ts → ./missing.js',
        'providers-not-to-storage: src/providers/bad.ts → src/db/tables.ts',
        'repositories-not-up: src/repositories/bad.ts → src/services/users.ts',
        'routes-not-to-storage: src/routes/bad.ts → src/db/database.ts',
        'services-not-to-http: src/services/bad.ts → src/http/openapi.ts',
        'shared-module-imports-nothing: src/domain/record-encoding.ts → src/domain/ok.ts',
        'web-only-shared-module: web/src/bad.ts → src/domain/ok.ts',
      ].sort(),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the source tree keeps the layer rules', async () => {
  assert.deepEqual(show(await cruise(root, ['src', 'web/src'])), []);
});
