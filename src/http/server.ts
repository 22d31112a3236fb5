// The HTTP server under Fastify: Node's HTTP/1 server with the configured
// time-outs and limits, so slow clients cannot hold connections open for
// ever, nor send endless headers. What Node answers by itself, before a
// request reaches Fastify (unparsable requests, huge headers, time-outs, a
// missing Host, an Expect it cannot meet, CONNECT), is answered here in
// SPEC's error shape, {"error": "..."}, like every other error.
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ConnectionError, FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

const ANSWER_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  connection: 'close',
};

/** A whole HTTP/1.1 error answer, for a socket with no response object to write through. */
export function rawErrorAnswer(status: number, message: string): string {
  const body = errorBody(message);
  const headers = Object.entries({ ...ANSWER_HEADERS, 'content-length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${headers}\r\n${body}`;
}

function answer(res: ServerResponse, status: number, message: string): void {
  const body = errorBody(message);
  res.writeHead(status, { ...ANSWER_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

// llhttp's error codes worth their own text; every other parse error is a plain 400.
const CLIENT_ERRORS: Record<string, { status: number; error: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: 'Request headers are too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, error: 'Chunk extensions are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: 'Request timed out' },
  HPE_INVALID_METHOD: { status: 400, error: 'Unknown HTTP method' },
  HPE_INVALID_HEADER_TOKEN: { status: 400, error: 'Malformed request header' },
  HPE_INVALID_CONTENT_LENGTH: { status: 400, error: 'Invalid Content-Length' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { status: 400, error: 'Content-Length together with Transfer-Encoding' },
};

/**
 * Fastify's `clientErrorHandler`: Node could not make a request of what the
 * client sent. Answered as Node would (same statuses, only when no answer
 * has started on the socket), then the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, error: 'Malformed HTTP request' };
  // Only the code: the error carries the raw bytes received, cookies included.
  this.log.debug({ code: err.code, status: known.status }, 'client error');
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(rawErrorAnswer(known.status, known.error));
  socket.destroy(err);
}

export function httpServerFactory(limits: Config['server']): (route: Route) => Server {
  return (route) => {
    const server = createServer(
      {
        headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
        connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
        maxHeaderSize: limits.maxHeaderBytes,
        // Checked below instead, to answer in the error shape (Node's own 400 has no body).
        requireHostHeader: false,
      },
      (req, res) => {
        if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
          answer(res, 400, 'Missing Host header');
          return;
        }
        route(req, res);
      },
    );
    // Any Expect other than 100-continue (which Node answers itself).
    server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => answer(res, 417, 'Unsupported Expect header'));
    // Not a proxy: without this Node drops a CONNECT without a word.
    server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => undefined);
      socket.end(rawErrorAnswer(501, 'CONNECT is not supported'), () => socket.destroy());
    });
    server.requestTimeout = limits.requestTimeoutMs;
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.setTimeout(limits.connectionTimeoutMs);
    // 0 is Node's own default (no limit): past a limit Node answers 503 to clients that reuse the socket.
    if (limits.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
    return server;
  };
}
