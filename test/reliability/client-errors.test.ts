// What Node answers before Fastify sees a request (unparsable request lines
// and headers, huge headers, time-outs, a missing Host, an unmet Expect,
// CONNECT) is in SPEC's error shape like every other answer (issue 22,
// finding 8). Raw sockets: these requests cannot be made with inject or fetch.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/** Sends bytes on a fresh connection; the first answer, once complete or once the server closes. */
function exchange(port: number, bytes: string, waitMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    const parse = (): RawAnswer | null => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine, ...lines] = received.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = received.slice(end + 4);
      const length = Number(headers['content-length'] ?? Number.NaN);
      if (!closed && !(body.length >= length)) return null;
      return { status: Number(statusLine?.split(' ')[1]), headers, body, closed };
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer; got: ${JSON.stringify(received.slice(0, 200))}`));
    }, waitMs);
    const finish = () => {
      const answer = parse();
      if (!answer) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (d) => {
      received += d.toString('latin1');
      finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
      clearTimeout(timer);
      reject(new Error(`closed without an answer; got: ${JSON.stringify(received.slice(0, 200))}`));
    });
    socket.on('connect', () => socket.write(bytes));
  });
}

function assertErrorShape(answer: RawAnswer, status: number, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.status} ${answer.body}`);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['error'], `${what}: ${answer.body}`);
  assert.equal(typeof body.error, 'string');
  assert.ok((body.error as string).length > 0);
}

describe("Node's own answers to broken requests, in the error shape", () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    const server = { ...testConfig().server, headersTimeoutMs: 300, requestTimeoutMs: 2000, timeoutCheckIntervalMs: 100 };
    t = await createTestApp('sqlite', { config: { server } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  const cases: Array<[string, string, number]> = [
    ['an unknown method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a malformed request line', 'garbage\r\n\r\n', 400],
    ['an HTTP/2 preface on HTTP/1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
    ['a header name with a space', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
    ['a non-numeric Content-Length', 'POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ['two Content-Lengths', 'POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400],
    [
      'Transfer-Encoding with Content-Length',
      'POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['a malformed chunk', 'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
    ['headers over the limit', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`, 431],
    ['a request line over the header limit', `GET /${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\n\r\n', 400],
    ['an Expect other than 100-continue', 'POST /login HTTP/1.1\r\nHost: x\r\nExpect: banana\r\nContent-Length: 2\r\n\r\n{}', 417],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 501],
    ['a method the router does not know', 'PROPFIND / HTTP/1.1\r\nHost: x\r\n\r\n', 404],
  ];
  for (const [what, bytes, status] of cases) {
    test(`${what} → ${status} {"error": "..."}`, async () => {
      const answer = await exchange(port, bytes);
      assertErrorShape(answer, status, what);
      if (status !== 404) assert.equal(answer.headers.connection, 'close', what);
    });
  }

  test('headers that stop coming → 408 {"error": "..."} and the connection is closed', async () => {
    const answer = await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n');
    assertErrorShape(answer, 408, 'slow headers');
  });

  test('a well-formed request on a fresh connection is still served', async () => {
    const answer = await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(answer.status, 200);
    const http10 = await exchange(port, 'GET / HTTP/1.0\r\n\r\n');
    assert.equal(http10.status, 200, 'HTTP/1.0 needs no Host');
  });
});
