// Which answers are compressed, and how hard (src/http/compression.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import {
  COMPRESS_THRESHOLD,
  compressText,
  compressionFor,
  ONCE,
  PER_REQUEST,
  PER_REQUEST_INLINE_LIMIT,
  PER_REQUEST_PLUGIN_OPTIONS,
} from '../../src/http/compression.js';

const quality = (levels: typeof ONCE) => levels.brotli.params?.[constants.BROTLI_PARAM_QUALITY];

test('a tiny answer goes plain, shared or not', () => {
  for (const bytes of [0, 200, COMPRESS_THRESHOLD - 1]) {
    assert.equal(compressionFor(bytes, true), null, String(bytes));
    assert.equal(compressionFor(bytes, false), null, String(bytes));
  }
});

test('a shared answer is compressed once at the thorough levels, in one call', () => {
  for (const bytes of [COMPRESS_THRESHOLD, 25_000, 5_000_000]) {
    assert.deepEqual(compressionFor(bytes, true), { levels: ONCE, inline: true }, String(bytes));
  }
});

test('a per-request answer is compressed at the cheap levels, inline up to the limit and streamed above', () => {
  assert.deepEqual(compressionFor(COMPRESS_THRESHOLD, false), { levels: PER_REQUEST, inline: true });
  assert.deepEqual(compressionFor(25_000, false), { levels: PER_REQUEST, inline: true }, 'a /feed page');
  assert.deepEqual(compressionFor(PER_REQUEST_INLINE_LIMIT, false), { levels: PER_REQUEST, inline: true });
  assert.deepEqual(compressionFor(PER_REQUEST_INLINE_LIMIT + 1, false), { levels: PER_REQUEST, inline: false });
});

test('the cheap levels are cheaper than the ones paid once', () => {
  assert.equal(quality(ONCE), 4);
  assert.equal(quality(PER_REQUEST), 1);
  assert.equal(PER_REQUEST.gzip.level, 1);
  assert.equal(ONCE.gzip.level, undefined, "zlib's default, 6");
});

test("@fastify/compress's options are the per-request choice: threshold, inline limit and levels", () => {
  assert.equal(PER_REQUEST_PLUGIN_OPTIONS.threshold, COMPRESS_THRESHOLD);
  assert.equal(PER_REQUEST_PLUGIN_OPTIONS.syncThreshold, PER_REQUEST_INLINE_LIMIT);
  assert.equal(PER_REQUEST_PLUGIN_OPTIONS.brotliOptions, PER_REQUEST.brotli);
  assert.equal(PER_REQUEST_PLUGIN_OPTIONS.zlibOptions, PER_REQUEST.gzip);
});

test('both levels decode to the answer', () => {
  const answer = JSON.stringify({ items: Array.from({ length: 80 }, (_, i) => ({ id: i, ticker: 'AAPL', direction: 'LONG', gain: i / 7 })) });
  for (const levels of [ONCE, PER_REQUEST]) {
    assert.equal(brotliDecompressSync(compressText('br', answer, levels)).toString(), answer);
    assert.equal(gunzipSync(compressText('gzip', answer, levels)).toString(), answer);
  }
});
