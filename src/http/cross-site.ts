// A state-changing request that a browser says comes from another site is
// refused, with or without the session cookie: with it, it would act as the
// user (CSRF); without it, it could log the browser into another account
// (login CSRF) or register in someone's name. Clients that send neither
// Sec-Fetch-Site nor Origin (non-browser clients, the providers' webhooks)
// are unaffected.
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { forbidden } from '../errors.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isCrossSite(headers: Record<string, string | string[] | undefined>, trusted: Set<string>): boolean {
  // The browser's own verdict wins: a same-origin form post under
  // Referrer-Policy: no-referrer (helmet's default) carries `Origin: null`.
  if (headers['sec-fetch-site'] === 'same-origin') return false;
  if (headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = headers.origin;
  if (typeof origin === 'string' && !trusted.has(origin)) return true;
  return false;
}

/**
 * Adds the check to every route with an unsafe method, ahead of the route's
 * own hooks (so a refusal comes before 401 or a rate limit). Installed before
 * the routes; GET routes and unknown paths (404) run no check at all.
 */
export function installCrossSiteProtection(app: FastifyInstance): void {
  const trusted = new Set(app.ctx.config.trustedOrigins);
  const refuseCrossSite: onRequestHookHandler = (request, _reply, done) => {
    done(isCrossSite(request.headers, trusted) ? forbidden('Cross-site request refused') : undefined);
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => UNSAFE.has(m))) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    // A route answering both safe and unsafe methods checks only the unsafe ones.
    const check: onRequestHookHandler = methods.every((m) => UNSAFE.has(m))
      ? refuseCrossSite
      : function (request, reply, done) {
          if (UNSAFE.has(request.method)) refuseCrossSite.call(this, request, reply, done);
          else done();
        };
    route.onRequest = [check, ...own];
  });
}
