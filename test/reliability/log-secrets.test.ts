import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { redactUrl } from '../../src/http/logging.js';
import { cookieFrom, createTestApp, uniqueName } from '../helpers/app.js';

test('logs of real requests carry request ids and none of the secrets they saw', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const t = await createTestApp('sqlite', { deps: { logger: { level: 'trace', stream } } });
  const password = 'Zq9-secret-passphrase-Lm4';
  const username = uniqueName('logs');
  const email = `${username}@example.test`;
  const secrets = [
    password,
    'Bearer-abcdef0123456789',
    't=1,v1=5257a869e7ecebeda32affa62cdca3fa',
    'tg-webhook-secret-77',
    'LINKCODE8842',
    'qtoken-991',
  ];
  try {
    const reg = await t.app.inject({ method: 'POST', url: '/register', payload: { username, email, password } });
    assert.equal(reg.statusCode, 201);
    const login = await t.app.inject({ method: 'POST', url: '/login', payload: { email, password }, headers: { 'x-request-id': 'login-req-1' } });
    assert.equal(login.statusCode, 200);
    const cookie = cookieFrom(login);
    secrets.push(cookie.split('=')[1]);
    const wrong = await t.app.inject({ method: 'POST', url: '/login', payload: { email, password: `${password}-wrong` } });
    assert.equal(wrong.statusCode, 401);
    const me = await t.app.inject({
      method: 'GET',
      url: '/me',
      headers: {
        cookie,
        authorization: 'Bearer Bearer-abcdef0123456789',
        'stripe-signature': 't=1,v1=5257a869e7ecebeda32affa62cdca3fa',
        'x-telegram-bot-api-secret-token': 'tg-webhook-secret-77',
      },
    });
    assert.equal(me.statusCode, 200);
    await t.app.inject({ method: 'GET', url: '/telegram/link?code=LINKCODE8842&token=qtoken-991&x=1' });
    // A link code is a credential in the path of the local link page: shown, confirmed, and tried again once used.
    const linkCode = await t.app.inject({ method: 'POST', url: '/chat/link-code', headers: { cookie } });
    assert.equal(linkCode.statusCode, 200);
    const { code } = linkCode.json() as { code: string };
    secrets.push(code);
    assert.equal((await t.app.inject({ method: 'GET', url: `/chat/local/link/${code}?x=1` })).statusCode, 200);
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/chat/local/link/${code}`,
      payload: 'confirm=yes',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(confirmed.statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `/chat/local/link/${code}` })).statusCode, 404);
    await t.app.inject({ method: 'POST', url: '/login', payload: { email, password, code: 'LINKCODE8842' } });
  } finally {
    await t.close();
  }
  const log = lines.join('\n');
  assert.ok(lines.length >= 10, 'the requests were logged');
  for (const s of secrets) assert.ok(!log.includes(s), `secret ${s.slice(0, 6)}… leaked into the log`);
  assert.ok(!log.includes('$argon2'), 'no password hash in the log');
  const entries = lines.map((l) => JSON.parse(l) as { reqId?: string; msg?: string; req?: { url?: string }; res?: { statusCode?: number } });
  // One line a request, when it ends (src/http/logging.ts): ten requests, ten lines, each with its status. This log is
  // at trace level, where each request's beginning is a line of its own too (debug and below; checked for secrets above).
  assert.equal(entries.filter((e) => e.msg === 'incoming request').length, 10, 'at debug level, each beginning');
  const requestLines = entries.filter((e) => e.req && e.msg !== 'incoming request');
  assert.equal(requestLines.length, 10, 'one line per request');
  assert.equal(new Set(requestLines.map((e) => e.reqId)).size, 10, 'no request logged twice');
  assert.ok(requestLines.every((e) => e.msg === 'request completed' && typeof e.res?.statusCode === 'number'));
  assert.ok(
    entries.some((e) => e.reqId === 'login-req-1'),
    'the given request id is in the log',
  );
  assert.ok(
    entries.filter((e) => e.req).every((e) => typeof e.reqId === 'string'),
    'every request entry has an id',
  );
  assert.ok(entries.some((e) => e.req?.url === '/telegram/link?code=[redacted]&token=[redacted]&x=1'));
  assert.ok(entries.some((e) => e.req?.url === '/chat/local/link/[redacted]?x=1'));
  assert.ok(entries.some((e) => e.req?.url === '/chat/local/link/[redacted]'));
});

test('redactUrl hides the values of secret-looking query parameters only', () => {
  assert.equal(redactUrl('/a'), '/a');
  assert.equal(redactUrl('/a?limit=5&offset=0'), '/a?limit=5&offset=0');
  assert.equal(redactUrl('/a?Code=1&api%5Fkey=2&flag'), '/a?Code=[redacted]&api%5Fkey=[redacted]&flag');
  assert.equal(redactUrl('/a?%E0%A4%A=1'), '/a?%E0%A4%A=1');
});

test('redactUrl hides the path parameters a route declares secret, and only those', () => {
  const route = { pattern: '/chat/local/link/:code', secretParams: ['code'] };
  assert.equal(redactUrl('/chat/local/link/AbC-123', route), '/chat/local/link/[redacted]');
  assert.equal(redactUrl('/chat/local/link/AbC%2F123?token=1&x=2', route), '/chat/local/link/[redacted]?token=[redacted]&x=2');
  // A path the router matched in another shape still hides the secret: the pattern stands in.
  assert.equal(redactUrl('/chat/local//link/AbC', route), '/chat/local/link/[redacted]');
  const mixed = { pattern: '/u/:user_id/k/:key.txt', secretParams: ['key'] };
  assert.equal(redactUrl('/u/42/k/s3cr3t.txt', mixed), '/u/42/k/[redacted]');
  assert.equal(redactUrl('/bet/42', { pattern: '/bet/:bet_id', secretParams: [] }), '/bet/42');
});

test('no documented route logs the value of a path parameter named like a secret', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const t = await createTestApp('sqlite', { deps: { logger: { level: 'info', stream } } });
  const SECRET_NAME = /code|token|password|secret|key|signature/i;
  const markers: string[] = [];
  try {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const secretNames = (op.parameters ?? []).filter((p) => p.in === 'path' && SECRET_NAME.test(p.name)).map((p) => p.name);
        if (secretNames.length === 0) continue;
        const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
          if (!secretNames.includes(name)) return '1';
          const marker = `SeCrEt${markers.length}x`;
          markers.push(marker);
          return marker;
        });
        await t.app.inject({ method: method.toUpperCase() as 'GET', url });
      }
    }
  } finally {
    await t.close();
  }
  assert.ok(markers.length > 0, 'the document has routes with secret path parameters (the link page)');
  const log = lines.join('');
  for (const m of markers) assert.ok(!log.includes(m), `${m} leaked into the log`);
});
