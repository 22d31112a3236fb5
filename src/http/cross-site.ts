// Cookie auth needs protection from other sites: a state-changing request that
// carries the session cookie is refused when the browser says it comes from
// another site. Clients that send neither Sec-Fetch-Site nor Origin
// (non-browser clients) are unaffected.
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../errors.js';
import { COOKIE } from './auth.js';

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
    const refused = UNSAFE.has(request.method) && request.cookies[COOKIE] !== undefined && isCrossSite(request.headers, trusted);
    done(refused ? forbidden('Cross-site request refused') : undefined);
  });
}
