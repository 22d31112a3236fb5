import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** Opens a raw connection, runs drive(socket), and resolves with what the server sent once it closed the connection. */
function rawExchange(port: number, drive: (socket: net.Socket, closed: () => boolean) => Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let isClosed = false;
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      isClosed = true;
      resolve(received);
    });
    socket.on('connect', () => {
      drive(socket, () => isClosed).then(() => {
        if (!isClosed) {
          socket.destroy();
          reject(new Error(`the server kept the connection open; got: ${received.slice(0, 80)}`));
        }
      }, reject);
    });
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('slow and oversized clients', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    const server = { ...testConfig().server, headersTimeoutMs: 400, requestTimeoutMs: 2000, timeoutCheckIntervalMs: 100, maxRequestsPerSocket: 2 };
    t = await createTestApp('sqlite', { config: { server } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  test('slow-loris: headers trickling in one line at a time are cut off (408)', async () => {
    let sent = 0;
    const received = await rawExchange(port, async (socket, closed) => {
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Each line resets an idle timer but not the headers deadline; give up after 20 s.
      while (!closed() && sent < 200) {
        await pause(100);
        if (!closed()) socket.write(`X-Slow-${sent++}: still-coming\r\n`);
      }
    });
    assert.ok(sent < 200, 'cut off before the client gave up');
    assert.ok(received === '' || received.startsWith('HTTP/1.1 408'), received.slice(0, 40));
  });

  test('oversized headers → 431 and the connection is closed', async () => {
    const received = await rawExchange(port, async (socket, closed) => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
      for (let i = 0; i < 200 && !closed(); i++) await pause(50);
    });
    assert.match(received, /^HTTP\/1\.1 431 /);
  });

  test('a keep-alive connection serves at most maxRequestsPerSocket requests: the last answer says Connection: close', async () => {
    const request = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += String(d);
    });
    const answers = () => received.match(/^connection: [\w-]+/gim) ?? [];
    try {
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      socket.write(request);
      for (let i = 0; i < 400 && answers().length < 1; i++) await pause(50);
      socket.write(request);
      for (let i = 0; i < 400 && answers().length < 2; i++) await pause(50);
    } finally {
      socket.destroy();
    }
    assert.deepEqual(
      answers().map((h) => h.toLowerCase()),
      ['connection: keep-alive', 'connection: close'],
    );
  });

  test('a normal client on the same server is served', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).status, 'ok');
  });
});
