import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { startServer } from '../helpers/server-process.js';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-shutdown-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('SIGTERM mid-request: the request completes, new connections are refused, the database is closed, exit 0', async () => {
  const file = path.join(dir, 'graceful.db');
  // At debug level the service logs a request as it begins, as well as when it ends.
  const server = startServer({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'debug' });
  const base = new URL(await server.ready);
  const port = Number(base.port);

  const body = JSON.stringify({ username: 'graceful_user', email: 'graceful@example.test', password: 'a perfectly fine passphrase' });
  const socket = net.connect(port, '127.0.0.1');
  let response = '';
  socket.on('data', (d) => {
    response += String(d);
  });
  // The server closes the connection after answering, since it is shutting down.
  const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write(
    `POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Request-Id: graceful-1\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  );
  // The server has started on the request once it logs it.
  await server.waitForLog((e) => e.reqId === 'graceful-1' && e.msg === 'incoming request');

  server.child.kill('SIGTERM');
  await server.waitForLog((e) => e.msg === 'shutting down');

  // A newcomer is turned away: refused at connect, or 503 if it raced the close.
  const late = await fetch(`${base.origin}/`).then(
    (r) => r.status,
    () => 'refused' as const,
  );
  assert.ok(late === 'refused' || late === 503, `late request got ${late}`);

  // write, not end: a half-closed client makes Node abandon the request.
  socket.write(body.slice(10));
  await socketClosed;
  assert.match(response, /^HTTP\/1\.1 201 /, `the in-flight request was answered: ${response.slice(0, 300)}`);

  const { code, signal } = await server.exited;
  assert.equal(signal, null);
  // main.ts exits 1 when shutdown outlasts 10 s, so 0 also means "in time".
  assert.equal(code, 0);
  // SQLite removes the WAL file when the last connection closes cleanly.
  assert.equal(fs.existsSync(`${file}-wal`), false, 'database closed');
  const db = new SQLite(file, { readonly: true });
  try {
    assert.equal((db.prepare('select count(*) as n from users where username = ?').get('graceful_user') as { n: number }).n, 1);
  } finally {
    db.close();
  }
});
