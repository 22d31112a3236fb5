// Request ids and request metrics.
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
  // A callback hook rather than an async one: it runs on every request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
