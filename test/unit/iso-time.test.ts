import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from '../../src/lib/iso-time.js';

test('isoTime gives what Date#toISOString gives, at the edges of days, months, leap years and centuries', () => {
  const edges = [
    '1970-01-01T00:00:00.000Z',
    '1999-12-31T23:59:59.999Z',
    '2000-02-29T12:00:00.000Z',
    '2000-03-01T00:00:00.000Z',
    '2024-02-29T23:59:59.999Z',
    '2100-02-28T23:59:59.999Z',
    '2100-03-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
  ];
  for (const s of edges) {
    const ms = Date.parse(s);
    for (const d of [-1, 0, 1]) assert.equal(isoTime(ms + d), new Date(ms + d).toISOString());
  }
});

test('isoTime agrees with Date#toISOString on 200,000 times spread over ten thousand years', () => {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 200_000; i++) {
    const ms = Math.floor(next() * 253_402_300_800_000);
    if (isoTime(ms) !== new Date(ms).toISOString()) assert.fail(`${ms}: ${isoTime(ms)} != ${new Date(ms).toISOString()}`);
  }
});

test('isoTime leaves times Date formats with a sign or rounds to Date itself', () => {
  for (const ms of [-1, -62198755200000, 253_402_300_800_000, 8.64e15, 1764207265090.7]) assert.equal(isoTime(ms), new Date(ms).toISOString());
  assert.throws(() => isoTime(Number.NaN), RangeError);
});
