import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatestSerialized } from '../../src/http/serialized.js';

test('each key is serialized once per value, again when its value changes, within a bounded number of keys', () => {
  let calls = 0;
  const serialize = (price: number) => {
    calls++;
    return JSON.stringify({ price });
  };
  const answers = new LatestSerialized<number>(2);
  const first = answers.bytes('AAPL', 100, serialize);
  assert.equal(first.toString(), '{"price":100}');
  assert.equal(answers.bytes('AAPL', 100, serialize), first, 'the same bytes, not made again');
  assert.equal(calls, 1);
  assert.equal(answers.bytes('AAPL', 101, serialize).toString(), '{"price":101}');
  assert.equal(calls, 2);
  answers.bytes('MSFT', 1, serialize);
  answers.bytes('SPY', 1, serialize);
  answers.bytes('AAPL', 101, serialize);
  assert.equal(calls, 5, 'the oldest key was dropped past the bound');
});
