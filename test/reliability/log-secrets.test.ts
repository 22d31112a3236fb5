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
    await t.app.inject({ method: 'POST', url: '/login', payload: { email, password, code: 'LINKCODE8842' } });
  } finally {
    await t.close();
  }
  const log = lines.join('\n');
  assert.ok(lines.length > 10, 'the requests were logged');
  for (const s of secrets) assert.ok(!log.includes(s), `secret ${s.slice(0, 6)}… leaked into the log`);
  assert.ok(!log.includes('$argon2'), 'no password hash in the log');
  const entries = lines.map((l) => JSON.parse(l) as { reqId?: string; req?: { url?: string } });
  assert.ok(
    entries.some((e) => e.reqId === 'login-req-1'),
    'the given request id is in the log',
  );
  assert.ok(
    entries.filter((e) => e.req).every((e) => typeof e.reqId === 'string'),
    'every request entry has an id',
  );
  assert.ok(entries.some((e) => e.req?.url === '/telegram/link?code=[redacted]&token=[redacted]&x=1'));
});

test('redactUrl hides the values of secret-looking query parameters only', () => {
  assert.equal(redactUrl('/a'), '/a');
  assert.equal(redactUrl('/a?limit=5&offset=0'), '/a?limit=5&offset=0');
  assert.equal(redactUrl('/a?Code=1&api%5Fkey=2&flag'), '/a?Code=[redacted]&api%5Fkey=[redacted]&flag');
  assert.equal(redactUrl('/a?%E0%A4%A=1'), '/a?%E0%A4%A=1');
});
