import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionTokens } from '../../src/services/tokens.js';

const T0 = Date.UTC(2026, 0, 5, 12);
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

test('a token verifies until its expiry, from the cache too, and not after', async () => {
  const tokens = new SessionTokens('s'.repeat(40));
  const token = await tokens.sign({ userId: 7, sessionId: 'abc' }, T0, 60);
  assert.deepEqual(await tokens.verify(token, T0 + 1000), { userId: 7, sessionId: 'abc' });
  assert.deepEqual(await tokens.verify(token, T0 + 59_000), { userId: 7, sessionId: 'abc' });
  assert.equal(await tokens.verify(token, T0 + 60_000), null);
  assert.equal(await new SessionTokens('s'.repeat(40)).verify(token, T0 + 60_000), null);
});

test('a verified token in the cache does not let a changed one through', async () => {
  const tokens = new SessionTokens('k'.repeat(40));
  const token = await tokens.sign({ userId: 7, sessionId: 'abc' }, T0, 600);
  assert.ok(await tokens.verify(token, T0));
  const [header, payload, sig] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const otherSub = `${header}.${b64({ ...claims, sub: '8' })}.${sig}`;
  const algNone = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
  const otherKey = await new SessionTokens('x'.repeat(40)).sign({ userId: 7, sessionId: 'abc' }, T0, 600);
  for (const forged of [otherSub, algNone, otherKey, `${token}x`, 'garbage']) assert.equal(await tokens.verify(forged, T0), null, forged);
});

test('a cached token is refused once expired by the given clock, whatever time has passed for the cache', async () => {
  const tokens = new SessionTokens('m'.repeat(40));
  const token = await tokens.sign({ userId: 9, sessionId: 'sid' }, T0, 60);
  assert.deepEqual(await tokens.verify(token, T0), { userId: 9, sessionId: 'sid' });
  assert.deepEqual(await tokens.verify(token, T0 + 59_999), { userId: 9, sessionId: 'sid' });
  assert.equal(await tokens.verify(token, T0 + 60_000), null, 'expired');
  assert.equal(await tokens.verify(token, T0 + 3_600_000), null, 'still expired');
});

test('a cached token does not vouch for an altered copy, before or after it was cached', async () => {
  const tokens = new SessionTokens('n'.repeat(40));
  const token = await tokens.sign({ userId: 9, sessionId: 'sid' }, T0, 60);
  const [header, payload, sig] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const longer = `${header}.${b64({ ...claims, exp: claims.exp + 86_400 })}.${sig}`;
  assert.equal(await tokens.verify(longer, T0), null);
  assert.ok(await tokens.verify(token, T0));
  assert.equal(await tokens.verify(longer, T0 + 1000), null, 'the same signature on another payload');
  assert.equal(await tokens.verify(`${token}x`, T0), null);
  assert.ok(await tokens.verify(token, T0 + 1000), 'the genuine one still passes');
});
