import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiSecurityHeaders, pageSecurityHeaders, securityHeadersFor } from '../../src/http/security-headers.js';

test('page security headers: our CSP, no HSTS over plain http', () => {
  const h = pageSecurityHeaders('http://localhost:3000');
  assert.match(h['content-security-policy'], /default-src 'self'/);
  assert.match(h['content-security-policy'], /frame-ancestors 'none'/);
  assert.doesNotMatch(h['content-security-policy'], /upgrade-insecure-requests/);
  assert.equal(h['strict-transport-security'], undefined);
  assert.equal(h['x-content-type-options'], 'nosniff');
  assert.equal(h['referrer-policy'], 'no-referrer');
});

test('page security headers: HSTS and upgrade-insecure-requests behind https', () => {
  const h = pageSecurityHeaders('https://bets.example');
  assert.match(h['strict-transport-security'], /max-age=\d+/);
  assert.match(h['content-security-policy'], /upgrade-insecure-requests/);
});

test('API security headers: nothing runs, frames, sniffs or embeds a JSON answer; HSTS only behind https', () => {
  const h = apiSecurityHeaders('http://localhost:3000');
  assert.deepEqual(h, {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-resource-policy': 'same-origin',
  });
  assert.equal(apiSecurityHeaders('https://bets.example')['strict-transport-security'], pageSecurityHeaders('https://bets.example')['strict-transport-security']);
});

test('the set follows the content type; untyped and non-JSON answers get the page set; an own CSP is kept', () => {
  const pick = securityHeadersFor('http://localhost:3000');
  const page = pageSecurityHeaders('http://localhost:3000');
  const api = apiSecurityHeaders('http://localhost:3000');
  assert.deepEqual(pick('application/json; charset=utf-8', false), api);
  assert.deepEqual(pick('application/problem+json', false), api);
  assert.deepEqual(pick('text/html; charset=utf-8', false), page);
  assert.deepEqual(pick('application/javascript', false), page);
  assert.deepEqual(pick('text/csv', false), page);
  assert.deepEqual(pick(undefined, false), page);
  assert.equal(pick('text/html', true)['content-security-policy'], undefined);
  assert.equal(pick('application/json', true)['content-security-policy'], undefined);
  assert.equal(pick('application/json', true)['x-frame-options'], 'DENY');
});
