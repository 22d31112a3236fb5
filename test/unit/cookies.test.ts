// Cookies with @fastify/cookie's parsing hook off (as the app registers it):
// a route reads the one it needs, and setting and clearing still work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { cookieOf } from '../../src/http/cookies.js';

async function app() {
  const a = Fastify();
  await a.register(cookie, { hook: false });
  return a;
}

test('cookieOf reads one cookie among several; undefined without the header or the cookie', async () => {
  const a = await app();
  a.get('/', async (request) => ({ token: cookieOf(request, 'auth_token') ?? null }));
  try {
    const read = async (header?: string) => (await a.inject({ url: '/', headers: header ? { cookie: header } : {} })).json().token;
    assert.equal(await read('theme=dark; auth_token=abc.def-ghi; lang=en'), 'abc.def-ghi');
    assert.equal(await read('auth_token=a%20b'), 'a b');
    assert.equal(await read('theme=dark'), null);
    assert.equal(await read(), null);
  } finally {
    await a.close();
  }
});

test('without the parsing hook, cookies set and cleared on one answer are all written with their attributes', async () => {
  const a = await app();
  a.get('/', async (_request, reply) => {
    reply.setCookie('auth_token', 'tok', { httpOnly: true, sameSite: 'lax', path: '/', secure: true, maxAge: 60 });
    reply.clearCookie('old', { path: '/' });
    return {};
  });
  try {
    const res = await a.inject({ url: '/' });
    const lines = res.headers['set-cookie'] as string[];
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^auth_token=tok; /);
    for (const attr of ['Max-Age=60', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']) assert.ok(lines[0]!.includes(attr), attr);
    const cleared = res.cookies.find((c) => c.name === 'old')!;
    assert.equal(cleared.value, '');
    assert.equal(cleared.maxAge, 0);
  } finally {
    await a.close();
  }
});
