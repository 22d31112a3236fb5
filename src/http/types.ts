import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../services/accounts.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Marks a route as needing the session: 401 before anything else without a live one (src/http/auth.ts). */
    auth?: boolean;
  }
}

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf() used on a route without config.auth');
  return request.principal;
}
