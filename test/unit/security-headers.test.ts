import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { headerSetFor, installSecurityHeaders } from '../../src/http/security-headers.js';

const SECURITY_HEADERS = [
  'content-security-policy',
  'cross-origin-embedder-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

async function serve(publicUrl: string) {
  const app = Fastify();
  await installSecurityHeaders(app, publicUrl);
  app.get('/json', async () => ({ ok: true }));
  app.get('/problem', async (_request, reply) => reply.type('application/problem+json').send('{"error":"x"}'));
  app.get('/html', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<p>hi</p>'));
  app.get('/csv', async (_request, reply) => reply.type('text/csv').send('a,b'));
  app.get('/css', async (_request, reply) => reply.type('text/css; charset=utf-8').send('p{}'));
  app.get('/png', async (_request, reply) => reply.type('image/png').send(Buffer.from('png')));
  app.get('/svg', async (_request, reply) => reply.type('image/svg+xml').send('<svg/>'));
  app.get('/js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send('1'));
  app.get('/untyped', async (_request, reply) => reply.send(Buffer.from('raw')));
  app.get('/own-csp', async (_request, reply) => reply.header('content-security-policy', "default-src 'self'").type('text/html').send('<p/>'));
  app.get('/own-csp-json', async (_request, reply) => reply.header('content-security-policy', 'sandbox').send({ ok: true }));
  app.register(async (child) => {
    // As local-pay-pages.ts does: a route plugin's own onSend sees the page CSP and may widen it.
    child.addHook('onSend', async (_request, reply) => {
      const csp = reply.getHeader('content-security-policy');
      if (typeof csp === 'string')
        reply.header('content-security-policy', csp.replace("form-action 'self'", "form-action 'self' https://web.example"));
    });
    child.get('/widened', async (_request, reply) => reply.type('text/html').send('<form></form>'));
  });
  await app.ready();
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    return Object.fromEntries(SECURITY_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, String(res.headers[h])]));
  };
  return { app, get };
}

const PAGE_CSP =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';img-src 'self' data:;" +
  "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline';connect-src 'self'";
const PAGE_CSP_HTTPS = PAGE_CSP.replace(';connect-src', ';upgrade-insecure-requests;connect-src');
const HSTS = 'max-age=31536000; includeSubDomains';

const pageSet = (csp: string | null, hsts: boolean) => ({
  ...(csp === null ? {} : { 'content-security-policy': csp }),
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  ...(hsts ? { 'strict-transport-security': HSTS } : {}),
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

const apiSet = (csp: string | null, hsts: boolean) => ({
  ...(csp === null ? {} : { 'content-security-policy': csp }),
  'cross-origin-resource-policy': 'same-origin',
  ...(hsts ? { 'strict-transport-security': HSTS } : {}),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

const API_CSP = "default-src 'none';frame-ancestors 'none'";

test('over plain http: the API set on JSON (errors included) and what a browser never runs, the page set on documents, no HSTS', async () => {
  const { app, get } = await serve('http://localhost:3000');
  try {
    assert.deepEqual(await get('/json'), apiSet(API_CSP, false));
    assert.deepEqual(await get('/problem'), apiSet(API_CSP, false));
    assert.deepEqual(await get('/nope'), apiSet(API_CSP, false), "Fastify's JSON 404");
    assert.deepEqual(await get('/csv'), apiSet(API_CSP, false));
    assert.deepEqual(await get('/css'), apiSet(API_CSP, false));
    assert.deepEqual(await get('/png'), apiSet(API_CSP, false));
    assert.deepEqual(await get('/html'), pageSet(PAGE_CSP, false));
    assert.deepEqual(await get('/svg'), pageSet(PAGE_CSP, false), 'an SVG can run script when opened');
    assert.deepEqual(await get('/js'), pageSet(PAGE_CSP, false), "a worker runs under its script's CSP");
    assert.deepEqual(await get('/untyped'), pageSet(PAGE_CSP, false));
  } finally {
    await app.close();
  }
});

test('behind https: HSTS on both sets, upgrade-insecure-requests in the page CSP', async () => {
  const { app, get } = await serve('https://bets.example');
  try {
    assert.deepEqual(await get('/json'), apiSet(API_CSP, true));
    assert.deepEqual(await get('/html'), pageSet(PAGE_CSP_HTTPS, true));
  } finally {
    await app.close();
  }
});

test("an answer's own CSP is kept; a route plugin's onSend sees the page CSP and may widen it", async () => {
  const { app, get } = await serve('http://localhost:3000');
  try {
    assert.deepEqual(await get('/own-csp'), pageSet("default-src 'self'", false));
    assert.deepEqual(await get('/own-csp-json'), apiSet('sandbox', false));
    assert.equal(
      (await get('/widened'))['content-security-policy'],
      PAGE_CSP.replace("form-action 'self'", "form-action 'self' https://web.example"),
    );
  } finally {
    await app.close();
  }
});

test('headerSetFor: the short set for types a browser never runs, the page set for documents, scripts and the unknown', () => {
  const api = [
    'application/json',
    'application/json; charset=utf-8',
    'application/problem+json',
    'application/openapi+json; charset=utf-8',
    'application/manifest+json',
    'APPLICATION/JSON',
    'text/css',
    'text/plain; charset=utf-8',
    'text/csv',
    'text/markdown; charset=utf-8',
    'image/png',
    'image/webp',
    'font/woff2',
    'audio/ogg',
    'video/mp4',
  ];
  const page = [
    'text/html; charset=utf-8',
    'application/xhtml+xml',
    'image/svg+xml',
    'application/xml',
    'text/xml',
    'text/javascript',
    'application/javascript',
    'application/pdf',
    'application/octet-stream',
    'application/jsonp',
    'text/plainish',
    '',
    undefined,
    42,
  ];
  for (const type of api) assert.equal(headerSetFor(type), 'api', String(type));
  for (const type of page) assert.equal(headerSetFor(type), 'page', String(type));
});
