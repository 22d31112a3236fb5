// The headers every answer carries, set in one onSend hook: the request id,
// no-store on private answers, and Connection: close while the server shuts
// down. The security headers come from security-headers.ts.
import type { FastifyInstance } from 'fastify';
import type { ClosingState } from './graceful-close.js';

export function installResponseHeaders(app: FastifyInstance, shutdown: ClosingState): void {
  // Registered after the cookie plugin, whose onSend hook writes Set-Cookie, so this one sees it.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // Anything answered on a session route (sessionRoute in route-options.ts), or setting a session, is the caller's own:
    // no shared cache (proxy, CDN, browser back/forward) may keep it.
    if (request.routeOptions.config?.auth === true || reply.hasHeader('set-cookie')) {
      reply.header('cache-control', 'no-store');
    }
    if (shutdown.closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
