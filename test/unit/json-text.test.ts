import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withJsonFields } from '../../src/lib/json-text.js';

describe('withJsonFields', () => {
  test('adds the members at the end of the object, as parsing and spreading would', () => {
    const view = JSON.stringify({ id: 7, note: 'a "}" inside', nested: { a: [1, { b: 2 }] } });
    const fields = JSON.stringify({ user_id: 3, username: 'x\u2028"y' });
    const out = withJsonFields(view, fields);
    assert.deepEqual(JSON.parse(out), { ...JSON.parse(view), ...JSON.parse(fields) });
    assert.deepEqual(Object.keys(JSON.parse(out)), ['id', 'note', 'nested', 'user_id', 'username']);
  });

  test('empty objects on either side give valid JSON', () => {
    assert.equal(withJsonFields('{"a":1}', '{}'), '{"a":1}');
    assert.equal(withJsonFields('{}', '{"b":2}'), '{"b":2}');
    assert.equal(withJsonFields('{}', '{}'), '{}');
  });
});
