// Requests that really overlap: each goes over its own raw socket, which sends
// the whole HTTP request except its last byte; once every socket has done so
// and the server holds every connection, all last bytes are released in one
// tick, so the server completes all the requests together.
import net from 'node:net';
import type { Server } from 'node:http';

export interface RawRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON (objects) or as is (strings). */
  body?: unknown;
}

export interface RawResponse {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed; T is what the caller expects the endpoint to send. */
  json<T = unknown>(): T;
}

const DEADLINE_MS = 60_000;

function encode(port: number, r: RawRequest): Buffer {
  const body = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...r.headers };
  if (r.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const head = `${r.method} ${r.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.from(head + body, 'utf8');
}

function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const rest = raw.subarray(end + 4);
  const body = (headers['transfer-encoding'] === 'chunked' ? decodeChunked(rest) : rest).toString('utf8');
  return {
    status,
    headers,
    body,
    json: () => JSON.parse(body),
  };
}

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`barrier: ${what} did not happen within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Sends every request over its own connection and releases them together.
 * `alongside` runs in the same tick as the release (e.g. a worker's pass), and
 * its result is returned with the responses.
 */
export async function together<T = undefined>(
  server: Server,
  requests: RawRequest[],
  alongside?: () => Promise<T>,
): Promise<{ responses: RawResponse[]; alongside: T | undefined }> {
  const port = (server.address() as net.AddressInfo).port;
  let accepted = 0;
  const onConnection = () => accepted++;
  server.on('connection', onConnection);
  const sockets = requests.map(() => net.connect(port, '127.0.0.1'));
  const received = sockets.map(() => [] as Buffer[]);
  const done = sockets.map(
    (s, i) =>
      new Promise<void>((resolve, reject) => {
        s.on('data', (d: Buffer) => received[i]!.push(d));
        s.on('error', reject);
        s.on('close', () => resolve());
      }),
  );
  try {
    const payloads = requests.map((r) => encode(port, r));
    await Promise.all(
      sockets.map(
        (s, i) =>
          new Promise<void>((resolve, reject) => {
            const write = () => s.write(payloads[i]!.subarray(0, -1), (err) => (err ? reject(err) : resolve()));
            if (s.connecting) s.once('connect', write);
            else write();
          }),
      ),
    );
    await until('every connection accepted', () => accepted >= sockets.length);
    // Give the server's parser every prefix before the release (it waits on the last byte of each).
    await new Promise((r) => setImmediate(r));
    const side = alongside?.();
    for (const [i, s] of sockets.entries()) s.write(payloads[i]!.subarray(-1));
    const [sideResult] = await Promise.all([side, Promise.all(done)]);
    return { responses: received.map((chunks) => parseResponse(Buffer.concat(chunks))), alongside: sideResult };
  } finally {
    server.off('connection', onConnection);
    for (const s of sockets) s.destroy();
  }
}

/**
 * A point in the server's work where a test holds a request: code under test
 * awaits arrive(), which waits until release(); the test awaits `reached` to
 * know a request is there. Nothing depends on timing.
 */
export class Barrier {
  readonly reached: Promise<void>;
  private arrived!: () => void;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  arrivals = 0;

  constructor() {
    this.reached = new Promise<void>((resolve) => (this.arrived = resolve));
  }

  arrive(): Promise<void> {
    this.arrivals++;
    this.arrived();
    return this.gate;
  }

  release(): void {
    this.open();
  }
}
