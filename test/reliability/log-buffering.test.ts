// Request logs leave in buffered, asynchronous writes (src/http/logging.ts):
// a reader that lags never stalls the event loop, and nothing is lost. Every
// request's line reaches the reader, those written just before a shutdown
// included, and a quiet service's lines are not held back until the buffer fills.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import { startServer } from '../helpers/server-process.js';

test('every request line reaches the log reader: a lone one within the flush period, a burst before exit', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'log-buffer-'));
  const server = startServer({ DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, WORKERS: 'off' });
  try {
    const base = await server.ready;
    // One request on an idle service: its line is written by the periodic flush, though far below the 4 KiB chunk.
    const lone = await fetch(`${base}/`, { headers: { 'x-request-id': 'lone-request-0001' } });
    assert.equal(lone.status, 200);
    await server.waitForLog((e) => e.reqId === 'lone-request-0001' && e.msg === 'request completed');
    // A burst, then a shutdown at once: the buffered lines are written before the process exits.
    const n = 200;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        fetch(`${base}/`, { headers: { 'x-request-id': `burst-request-${String(i).padStart(4, '0')}` } }).then((r) => r.text()),
      ),
    );
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    assert.equal(code, 0);
    // The pipe may still hold the last lines when the exit is reported.
    await finished(server.child.stdout!);
    const completed = server.logs.filter((e) => typeof e.reqId === 'string' && e.reqId.startsWith('burst-request-') && e.msg === 'request completed');
    assert.equal(completed.length, n);
    assert.ok(server.logs.some((e) => e.msg === 'shutting down'));
  } finally {
    server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
