// A state-changing request that a browser says comes from another site is
// refused, with or without the session cookie: with it, it would act as the
// user (CSRF); without it, it could log the browser into another account
// (login CSRF) or register in someone's name. Clients that send neither
// Sec-Fetch-Site nor Origin (non-browser clients, the providers' webhooks)
// are unaffected.
import type { FastifyInstance } from 'fastify';
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

export function installCrossSiteProtection(app: FastifyInstance): void {
  const trusted = new Set(app.ctx.config.trustedOrigins);
  app.addHook('onRequest', (request, _reply, done) => {
    done(UNSAFE.has(request.method) && isCrossSite(request.headers, trusted) ? forbidden('Cross-site request refused') : undefined);
  });
}
