// Request ids, request metrics and the no-store rule for private responses.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** A caller's id is kept only when it is short, printable and cannot forge log lines or headers. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

export function installObservability(app: FastifyInstance, metrics: Metrics): void {
  // Callback hooks rather than async ones: they run on every request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // Anything answered for a session, or setting one, is the caller's own:
    // no shared cache (proxy, CDN, browser back/forward) may keep it.
    if (request.routeOptions.config?.auth === true || reply.hasHeader('set-cookie')) {
      reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
