import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { fuzzContract } from '../helpers/fuzz.js';

forEachDialect('contract fuzzing from /openapi.json, long', (dialect) => {
  test('5000 valid and hostile requests keep the invariants', { timeout: 30 * 60_000 }, async (t) => {
    const { statuses } = await fuzzContract(dialect, 5000);
    t.diagnostic(JSON.stringify(statuses));
    assert.ok(Object.keys(statuses).length > 20);
  });
});
