import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { fuzzContract } from '../helpers/fuzz.js';

// A few hundred cases per dialect here; test/long/ runs thousands.
forEachDialect('contract fuzzing from /openapi.json', (dialect) => {
  test('valid and hostile requests to every operation keep the invariants', { timeout: 10 * 60_000 }, async (t) => {
    const { statuses } = await fuzzContract(dialect, 300);
    t.diagnostic(JSON.stringify(statuses));
    assert.ok(
      Object.keys(statuses).some((k) => k.endsWith(' 400')),
      'invalid requests were refused',
    );
    assert.ok(
      Object.keys(statuses).some((k) => /^POST \/register 201$/.test(k) || / 200$/.test(k)),
      'valid requests got through',
    );
  });
});
