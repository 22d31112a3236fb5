// The session cookie without a plugin: read from the Cookie header, written
// as Set-Cookie lines that add up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { addSetCookie, cookieOf } from '../../src/http/cookies.js';

test('cookieOf reads one cookie among several; undefined without the header or the cookie', async () => {
  const app = Fastify();
  app.get('/', async (request) => ({ token: cookieOf(request, 'auth_token') ?? null }));
  try {
    const read = async (cookie?: string) => (await app.inject({ url: '/', headers: cookie ? { cookie } : {} })).json().token;
    assert.equal(await read('theme=dark; auth_token=abc.def-ghi; lang=en'), 'abc.def-ghi');
    assert.equal(await read('auth_token=a%20b'), 'a b');
    assert.equal(await read('theme=dark'), null);
    assert.equal(await read(), null);
  } finally {
    await app.close();
  }
});

test('addSetCookie writes the attributes and keeps every cookie set on one answer', async () => {
  const app = Fastify();
  app.get('/', async (_request, reply) => {
    addSetCookie(reply, { name: 'auth_token', value: 'tok', httpOnly: true, sameSite: 'lax', path: '/', secure: true, maxAge: 60 });
    addSetCookie(reply, { name: 'old', value: '', path: '/', expires: new Date(0), maxAge: 0 });
    return {};
  });
  try {
    const res = await app.inject({ url: '/' });
    const lines = res.headers['set-cookie'] as string[];
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^auth_token=tok; /);
    for (const attr of ['Max-Age=60', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']) assert.ok(lines[0]!.includes(attr), attr);
    const cleared = res.cookies.find((c) => c.name === 'old')!;
    assert.equal(cleared.value, '');
    assert.equal(cleared.maxAge, 0);
  } finally {
    await app.close();
  }
});
