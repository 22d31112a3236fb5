import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { serviceCommand } from '../../bench/lib/server.js';

test('the benchmark starts the service as npm start does: the built entry point with the start script’s flags', () => {
  const { nodeArgs, entry } = serviceCommand();
  assert.equal(entry, 'dist/main.js');
  const start = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  assert.deepEqual(nodeArgs, start.slice(1, -1));
  assert.ok(
    nodeArgs.some((a) => a.startsWith('--max-old-space-size=')),
    nodeArgs.join(' '),
  );
});

test('a start script that is not node running a built file is refused with the reason', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-svc-'));
  try {
    const file = path.join(dir, 'package.json');
    fs.writeFileSync(file, JSON.stringify({ scripts: { start: 'tsx src/main.ts' } }));
    assert.throws(() => serviceCommand(file), /start script is not "node \[flags\] FILE\.js": tsx src\/main\.ts/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
