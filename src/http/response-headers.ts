// The headers every answer carries, set in one onSend hook (it runs on every
// request, so one callback hook rather than several): the request id, the
// security headers for its kind (security-headers.ts), no-store on private
// answers, and Connection: close while the server shuts down.
import type { FastifyInstance } from 'fastify';
import type { ClosingState } from './graceful-close.js';
import { securityHeadersFor } from './security-headers.js';

export function installResponseHeaders(app: FastifyInstance, publicUrl: string, shutdown: ClosingState): void {
  const securityHeaders = securityHeadersFor(publicUrl);
  // Registered after the cookie plugin, whose onSend hook writes Set-Cookie, so this one sees it.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(securityHeaders(reply.getHeader('content-type'), reply.hasHeader('content-security-policy')));
    reply.header('x-request-id', request.id);
    // Anything answered for a session, or setting one, is the caller's own:
    // no shared cache (proxy, CDN, browser back/forward) may keep it.
    if (request.routeOptions.config?.auth === true || reply.hasHeader('set-cookie')) {
      reply.header('cache-control', 'no-store');
    }
    if (shutdown.closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
