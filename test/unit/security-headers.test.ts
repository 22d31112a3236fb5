import assert from 'node:assert/strict';
import { test } from 'node:test';
import { securityHeaders } from '../../src/http/security-headers.js';

test('security headers: our CSP, no HSTS over plain http', () => {
  const h = securityHeaders('http://localhost:3000');
  assert.match(h['content-security-policy'], /default-src 'self'/);
  assert.match(h['content-security-policy'], /frame-ancestors 'none'/);
  assert.doesNotMatch(h['content-security-policy'], /upgrade-insecure-requests/);
  assert.equal(h['strict-transport-security'], undefined);
  assert.equal(h['x-content-type-options'], 'nosniff');
  assert.equal(h['referrer-policy'], 'no-referrer');
});

test('security headers: HSTS and upgrade-insecure-requests behind https', () => {
  const h = securityHeaders('https://bets.example');
  assert.match(h['strict-transport-security'], /max-age=\d+/);
  assert.match(h['content-security-policy'], /upgrade-insecure-requests/);
});
