// The database's transaction store (an AsyncLocalStorage) hooks every promise
// of the process while enabled; it is enabled only while a transaction is
// open, so reads between writes do not pay for it. Checked in a child process:
// node:test keeps promise hooks of its own on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

test('promises are hooked only while a transaction is open', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/helpers/transaction-hooks.ts'], { encoding: 'utf8' });
  const seen = JSON.parse(out) as { before: boolean[]; inside: boolean[]; after: boolean[]; alsHooksPromises: boolean };
  // Inside a transaction the store is on: hooked where this Node's AsyncLocalStorage hooks promises (Node 20).
  const inside = seen.alsHooksPromises;
  assert.deepEqual(seen, { before: [false], inside: [inside, inside, inside, inside], after: [false, false], alsHooksPromises: inside });
  if (process.versions.node.startsWith('20.')) assert.equal(inside, true, 'Node 20 hooks promises for an enabled AsyncLocalStorage');
});
