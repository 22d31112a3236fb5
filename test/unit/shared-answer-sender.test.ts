// The sender of shared answers keeps each answer's bytes with the answer
// object itself (src/http/cache-control.ts): made once per object, never for
// an equal object made afresh, and invisible in the answer's own JSON.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { sharedAnswerSender } from '../../src/http/cache-control.js';

async function serve(answers: () => object) {
  const app = Fastify();
  let serializations = 0;
  app.setSerializerCompiler(() => (data) => {
    serializations++;
    return JSON.stringify(data);
  });
  const send = sharedAnswerSender();
  app.get('/a', { schema: { response: { 200: { type: 'object' } } } }, async (request, reply) => send(request, reply, answers()));
  await app.ready();
  return { app, serializations: () => serializations };
}

test('one answer object is serialized once however often it is sent; a fresh equal one again', async () => {
  const shared = { board: [1, 2, 3], text: 'x'.repeat(2000) };
  let next: object = shared;
  const s = await serve(() => next);
  for (let i = 0; i < 3; i++) {
    const res = await s.app.inject({ method: 'GET', url: '/a', headers: { 'accept-encoding': 'br' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'br');
    assert.equal(res.headers['cache-control'], 'public, max-age=1');
  }
  assert.equal(s.serializations(), 1);
  next = { board: [1, 2, 3], text: 'x'.repeat(2000) };
  const fresh = await s.app.inject({ method: 'GET', url: '/a' });
  assert.deepEqual(fresh.json(), shared);
  assert.equal(s.serializations(), 2);
  // What the sender keeps on the object is no property of the answer.
  assert.deepEqual(Object.keys(shared), ['board', 'text']);
  assert.equal(JSON.stringify(shared), JSON.stringify(next));
  await s.app.close();
});

test('a frozen answer is sent as well, serialized at each send', async () => {
  const frozen = Object.freeze({ ok: true });
  const s = await serve(() => frozen);
  for (let i = 0; i < 2; i++) {
    const res = await s.app.inject({ method: 'GET', url: '/a' });
    assert.deepEqual(res.json(), { ok: true });
  }
  assert.equal(s.serializations(), 2);
  await s.app.close();
});
