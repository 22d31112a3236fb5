import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../services/accounts.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** onRequest hook for "Auth: yes" routes: 401 unless the auth_token cookie names a live session. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Marks a route as needing the session (used by the OpenAPI security declaration and tests). */
    auth?: boolean;
  }
}

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf() used on a route without authenticate');
  return request.principal;
}
