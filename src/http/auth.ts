// Cookie sessions: sets and clears auth_token, and the authentication every
// route marked `config: { auth: true }` runs before anything else (so 401
// comes before 400).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.js';
import { authenticate, type Principal } from '../services/accounts.js';
import { cookieOf } from './cookies.js';

export const COOKIE = 'auth_token';

/** Routes registered after this call that set `config.auth` authenticate first. */
export function installAuth(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  const authenticateRequest = async (request: FastifyRequest): Promise<void> => {
    const token = cookieOf(request, COOKIE);
    const principal = token ? await authenticate(app.ctx, token) : null;
    if (!principal) throw unauthorized();
    request.principal = principal;
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== true) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [authenticateRequest, ...own] as typeof route.onRequest;
  });
}

/**
 * A marker set and cleared with the session cookie, readable by scripts (not
 * HttpOnly) and holding no secret: the web app reads it to know it has no
 * session without asking GET /me (whose 401 every anonymous page logged). The
 * server never reads it: a forged marker gets a visitor nothing but one 401.
 */
export const MARKER_COOKIE = 'signed_in';

export function setSessionCookie(app: FastifyInstance, reply: FastifyReply, token: string): void {
  const options = {
    sameSite: 'lax',
    path: '/',
    secure: app.ctx.config.publicUrl.startsWith('https:'),
    maxAge: app.ctx.config.sessionTtlSeconds,
  } as const;
  reply.setCookie(COOKIE, token, { ...options, httpOnly: true });
  reply.setCookie(MARKER_COOKIE, '1', { ...options, httpOnly: false });
}

export function clearSessionCookie(app: FastifyInstance, reply: FastifyReply): void {
  const options = { sameSite: 'lax', path: '/', secure: app.ctx.config.publicUrl.startsWith('https:') } as const;
  reply.clearCookie(COOKIE, { ...options, httpOnly: true });
  reply.clearCookie(MARKER_COOKIE, { ...options, httpOnly: false });
}

/** The caller of a public route that answers more with a session: null without one or with a dead one, never 401. */
export async function optionalPrincipal(app: FastifyInstance, request: FastifyRequest): Promise<Principal | null> {
  const token = cookieOf(request, COOKIE);
  return token ? authenticate(app.ctx, token) : null;
}
