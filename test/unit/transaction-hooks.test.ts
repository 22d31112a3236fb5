// The database's transaction store (an AsyncLocalStorage) hooks every promise
// of the process while enabled; it is enabled only while a transaction is
// open, so reads between writes do not pay for it. Checked in a child process:
// node:test keeps promise hooks of its own on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

test('promises are hooked only while a transaction is open', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/helpers/transaction-hooks.ts'], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { before: [false], inside: [true, true, true, true], after: [false, false] });
});
