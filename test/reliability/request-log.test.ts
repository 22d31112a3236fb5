// One log line a request (src/http/logging.ts), whatever its outcome: a
// success, a refusal, a failure (the error rides on the request's line) and a
// client that left before the answer. A bare Fastify app built with the
// service's logging options and error handler, so the failures can be made.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { AppError } from '../../src/errors.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { installRequestLog, loggingOptions } from '../../src/http/logging.js';
import { requestIdOf } from '../../src/http/observability.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string; remoteAddress: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: Record<string, unknown>;
}

async function loggedApp(): Promise<{ app: FastifyInstance; lines: Line[] }> {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  const app = Fastify({ ...loggingOptions('info', stream), requestIdHeader: false, genReqId: requestIdOf });
  installRequestLog(app);
  installErrorHandling(app);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/refused', async () => {
    throw new AppError(403, { error: 'Not yours' });
  });
  app.get('/unavailable', async () => {
    throw new AppError(503, { error: 'Prices unavailable' });
  });
  app.get('/broken', async () => {
    throw Object.assign(new Error('db went away'), { code: 'E_GONE', password: 'Pw-in-error-99', config: { token: 'tok-in-error-77' } });
  });
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { late: true };
  });
  await app.ready();
  return { app, lines };
}

const ofRequest = (lines: Line[], id: string) => lines.filter((l) => l.reqId === id);

test('a request is logged once, when it ends: method, url, address, status, time and id', async () => {
  const { app, lines } = await loggedApp();
  try {
    const cases: Array<[string, number]> = [
      ['/ok?limit=5&token=tok-query-1', 200],
      ['/refused', 403],
      ['/nowhere', 404],
    ];
    for (const [url, status] of cases) {
      const id = `req-${status}`;
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { 'x-request-id': id, cookie: 'session=ck-secret-5', authorization: 'Bearer ab-secret-6' },
      });
      assert.equal(res.statusCode, status);
      const mine = ofRequest(lines, id);
      assert.equal(mine.length, 1, `one line for ${url}: ${JSON.stringify(mine)}`);
      const [line] = mine as [Line];
      assert.equal(line.msg, 'request completed');
      assert.equal(line.level, 30);
      assert.equal(line.req?.method, 'GET');
      assert.equal(line.res?.statusCode, status);
      assert.equal(typeof line.req?.remoteAddress, 'string');
      assert.ok(typeof line.responseTime === 'number' && line.responseTime >= 0);
      assert.equal(line.err, undefined);
    }
    assert.equal(ofRequest(lines, 'req-200')[0]?.req?.url, '/ok?limit=5&token=[redacted]');
  } finally {
    await app.close();
  }
  const log = JSON.stringify(lines);
  for (const secret of ['tok-query-1', 'ck-secret-5', 'ab-secret-6']) assert.ok(!log.includes(secret), `${secret} leaked`);
});

test('a failed request is one line, at the failure level, carrying the error but none of its other properties', async () => {
  const { app, lines } = await loggedApp();
  try {
    assert.equal((await app.inject({ method: 'GET', url: '/broken', headers: { 'x-request-id': 'req-500' } })).statusCode, 500);
    assert.equal((await app.inject({ method: 'GET', url: '/unavailable', headers: { 'x-request-id': 'req-503' } })).statusCode, 503);
  } finally {
    await app.close();
  }
  const broken = ofRequest(lines, 'req-500');
  assert.equal(broken.length, 1, JSON.stringify(broken));
  const [line] = broken as [Line];
  assert.equal(line.level, 50);
  assert.equal(line.res?.statusCode, 500);
  assert.equal(line.err?.message, 'db went away');
  // The code is kept (a redaction path once hid every `*.code`); a property nobody named is not.
  assert.equal(line.err?.code, 'E_GONE');
  assert.equal(typeof line.err?.stack, 'string');
  const log = JSON.stringify(lines);
  assert.ok(!log.includes('Pw-in-error-99') && !log.includes('tok-in-error-77'), 'no unnamed property of an error is logged');
  const unavailable = ofRequest(lines, 'req-503');
  assert.equal(unavailable.length, 1, JSON.stringify(unavailable));
  assert.equal(unavailable[0]?.level, 40);
  assert.deepEqual(unavailable[0]?.err, { error: 'Prices unavailable' });
});

test('a request whose client leaves before the answer is one line too, written when it leaves', async () => {
  const { app, lines } = await loggedApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET /slow?code=lc-secret-3 HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-gone\r\nCookie: s=ck-secret-4\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    // The handler answers after 300 ms, to no one: still one line.
    await new Promise((resolve) => setTimeout(resolve, 450));
    // A request on its own connection, answered and closed normally, is not taken for an abort.
    const res = await fetch(`http://127.0.0.1:${port}/ok`, { headers: { 'x-request-id': 'req-kept', connection: 'close' } });
    assert.equal(res.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await app.close();
  }
  const gone = ofRequest(lines, 'req-gone');
  assert.equal(gone.length, 1, JSON.stringify(gone));
  assert.equal(gone[0]?.msg, 'request aborted');
  assert.equal(gone[0]?.req?.url, '/slow?code=[redacted]');
  const kept = ofRequest(lines, 'req-kept');
  assert.equal(kept.length, 1, JSON.stringify(kept));
  assert.equal(kept[0]?.msg, 'request completed');
  const log = JSON.stringify(lines);
  assert.ok(!log.includes('lc-secret-3') && !log.includes('ck-secret-4'));
});
