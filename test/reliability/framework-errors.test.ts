import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

// Found by the contract fuzzer: errors Fastify raises before routing answered
// in Fastify's own shape ({error, code, message, statusCode}) echoing the path.
let t: TestApp;
before(async () => {
  t = await createTestApp('sqlite');
});
after(() => t.close());

test('a malformed percent-escape in the path → 400 in the Error shape, path not echoed', async () => {
  for (const url of ['/bet/%zz', '/user/%/public', '/price/%E0%A4%A']) {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url, headers: { 'x-request-id': 'bad-url-1' } });
      assert.equal(res.statusCode, 400, `${method} ${url}`);
      assert.deepEqual(res.json(), { error: 'Malformed URL' });
    }
  }
});

test('an over-long path segment → 414 in the Error shape', async () => {
  const res = await t.app.inject({ method: 'DELETE', url: `/bet/${'9'.repeat(1000)}` });
  assert.equal(res.statusCode, 414);
  assert.deepEqual(res.json(), { error: 'URL path segment is too long' });
});
