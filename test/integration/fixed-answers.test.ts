// The discovery documents and the API reference's assets are the same bytes
// for every request: each is serialized once and compressed at most once per
// encoding, however many clients ask (issue 34: 1,300 requests for
// /openapi.json slowed every login). Counted on zlib itself and on the
// document's generation, never on time.
import assert from 'node:assert/strict';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { createTestApp, type TestApp } from '../helpers/app.js';

const COMPRESSORS = ['brotliCompressSync', 'gzipSync', 'createBrotliCompress', 'createGzip'] as const;

const URLS = [
  '/openapi.json',
  '/llms.txt',
  '/docs/json',
  '/docs/static/swagger-ui-bundle.js',
  '/docs/static/swagger-ui-standalone-preset.js',
  '/docs/static/swagger-ui.css',
];

let t: TestApp;
let compressions = 0;
const originals = new Map<string, PropertyDescriptor>();
before(async () => {
  // Some of zlib's functions are read-only properties, but configurable.
  for (const name of COMPRESSORS) {
    const descriptor = Object.getOwnPropertyDescriptor(zlib, name) as PropertyDescriptor;
    const original = descriptor.value as (...args: unknown[]) => unknown;
    originals.set(name, descriptor);
    const counted = (...args: unknown[]) => {
      compressions++;
      return original(...args);
    };
    Object.defineProperty(zlib, name, { ...descriptor, value: counted });
  }
  syncBuiltinESMExports();
  t = await createTestApp('sqlite');
});
after(async () => {
  for (const [name, descriptor] of originals) Object.defineProperty(zlib, name, descriptor);
  syncBuiltinESMExports();
  await t.close();
});

const get = (url: string, encoding?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...(encoding ? { 'accept-encoding': encoding } : {}), ...headers } });

test('each document and asset is compressed at most once per encoding, and reads the same in each', async () => {
  for (const url of URLS) {
    const plain = await get(url);
    assert.equal(plain.statusCode, 200, url);
    assert.equal(plain.headers['content-encoding'], undefined, url);
    const before = compressions;
    for (let i = 0; i < 4; i++) {
      const br = await get(url, 'br, gzip');
      assert.equal(br.headers['content-encoding'], 'br', url);
      assert.match(String(br.headers.vary), /accept-encoding/i, url);
      assert.equal(br.headers['content-type'], plain.headers['content-type'], url);
      assert.ok(zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload), url);
      const gz = await get(url, 'gzip');
      assert.equal(gz.headers['content-encoding'], 'gzip', url);
      assert.ok(zlib.gunzipSync(gz.rawPayload).equals(plain.rawPayload), url);
    }
    assert.ok(compressions - before <= 2, `${url}: ${compressions - before} compressions for 8 compressed answers`);
  }
});

test('the OpenAPI document is generated once, for /openapi.json and /docs/json alike', async () => {
  const app = t.app as unknown as { swagger: (...args: unknown[]) => unknown };
  const swagger = app.swagger;
  let generated = 0;
  app.swagger = (...args: unknown[]) => {
    generated++;
    return swagger.apply(t.app, args);
  };
  try {
    const first = await get('/openapi.json');
    for (let i = 0; i < 5; i++) {
      assert.equal((await get('/openapi.json')).body, first.body);
      assert.deepEqual((await get('/docs/json')).json(), first.json());
    }
    assert.ok(generated <= 1, `the document was made ${generated} times`);
  } finally {
    app.swagger = swagger;
  }
});

test('an asset answers 304 to its ETag, and HEAD without a body', async () => {
  const url = '/docs/static/swagger-ui-bundle.js';
  const first = await get(url, 'br');
  const etag = String(first.headers.etag);
  assert.ok(etag.length > 2);
  const again = await get(url, 'br', { 'if-none-match': etag });
  assert.equal(again.statusCode, 304);
  assert.equal(again.rawPayload.length, 0);
  const head = await t.app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'br' } });
  assert.equal(head.statusCode, 200);
  assert.equal(head.rawPayload.length, 0);
});
