// The HTTP server under Fastify: Node's HTTP/1 server with the configured
// time-outs and limits, so slow clients cannot hold connections open for
// ever, nor send endless headers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Config } from '../config.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

export function httpServerFactory(limits: Config['server']): (route: Route) => Server {
  return (route) => {
    const server = createServer(
      {
        headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
        connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
        maxHeaderSize: limits.maxHeaderBytes,
      },
      route,
    );
    server.requestTimeout = limits.requestTimeoutMs;
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.setTimeout(limits.connectionTimeoutMs);
    // 0 is Node's own default (no limit): past a limit Node answers 503 to clients that reuse the socket.
    if (limits.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
    return server;
  };
}
