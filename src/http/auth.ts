// Cookie sessions: sets and clears auth_token, and the authenticate hook that
// "Auth: yes" routes run before anything else (so 401 comes before 400).
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.js';
import { authenticate, knownPrincipal, type Principal } from '../services/accounts.js';
import { cookieOf } from './cookies.js';

export const COOKIE = 'auth_token';

export function installAuth(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.decorate('authenticate', async (request) => {
    const token = cookieOf(request, COOKIE);
    const principal = token ? await authenticate(app.ctx, token) : null;
    if (!principal) throw unauthorized();
    request.principal = principal;
  });
}

export function setSessionCookie(app: FastifyInstance, reply: FastifyReply, token: string): void {
  reply.setCookie(COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: app.ctx.config.publicUrl.startsWith('https:'),
    maxAge: app.ctx.config.sessionTtlSeconds,
  });
}

export function clearSessionCookie(app: FastifyInstance, reply: FastifyReply): void {
  reply.clearCookie(COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: app.ctx.config.publicUrl.startsWith('https:'),
  });
}

/** The caller of a public route that answers more with a session: null without one or with a dead one, never 401. */
export async function optionalPrincipal(app: FastifyInstance, request: FastifyRequest): Promise<Principal | null> {
  const token = cookieOf(request, COOKIE);
  return token ? authenticate(app.ctx, token) : null;
}

/**
 * Whether a raw request (before routing) carries a session already known live
 * here, from memory alone (src/http/front-answers.ts). False means "ask the
 * router": the session may still be valid, or it is not and the router says 401.
 */
export function knownSession(app: FastifyInstance, req: IncomingMessage): boolean {
  const header = req.headers.cookie;
  if (!header) return false;
  const token = app.parseCookie(header)[COOKIE];
  return token !== undefined && knownPrincipal(app.ctx, token) !== undefined;
}
