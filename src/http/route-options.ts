// How a route is declared: who may call it, how often, and what that adds to
// its answers, said once. Each builder takes the route's schema and returns
// its `config` and completed `schema` (the options of app.get/post/...,
// spread when the route has more): the session or its
// absence in `config` and in the document's `security`, the 401 every session
// route can answer, the 429 every limited route can answer, and the answer's
// Cache-Control where the access decides it.
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Config } from '../config.js';
import { errorResponses } from '../schemas/common.js';
import { optionalPrincipal } from './auth.js';
import { clientAddressOf } from './client-address.js';
import { COOKIE_AUTH, PUBLIC } from './openapi.js';

/** Per user (the session's): writes, or reads that cost more than a query bounded by the caller's own data; or none. */
export type SessionLimit = 'writes' | 'costly reads' | 'none';
/** Per client address: reads at the public rate, or the sign-in rate (login, register, emailed links); or none. */
export type PublicLimit = 'reads' | 'sign-in' | 'none';

interface RouteFlags {
  /** Takes the Idempotency-Key header (src/http/idempotency.ts); session routes only. */
  idempotent?: true;
  /** Path parameters that are credentials: never logged (src/http/logging.ts). */
  secretParams?: readonly string[];
}

/** The schema a builder completes: `response` holds the route's own answers. */
type RouteSchema = FastifySchema & { response?: Record<number, unknown> };

const ERROR_ANSWER = errorResponses(401)[401];
type Security = typeof COOKIE_AUTH;

/** The schema as the route wrote it, with its security and the answers its access adds. */
type Completed<S extends RouteSchema, Added extends number, E> = S & {
  security: Security;
  response: Record<Added, E> & NonNullable<S['response']>;
};

interface AccessOptions<L, S, E> extends RouteFlags {
  limit: L;
  /** The route's schema: its own parameters, body and answers (security and the access's answers are added). */
  schema: S;
  /**
   * The schema of the answers the access adds (401, 429): the Error shape by
   * default; pages answer their errors as HTML and pass theirs.
   */
  errorAnswer?: E;
}

type RouteConfig = Pick<FastifyContextConfig, 'auth' | 'idempotent' | 'secretParams'> & { rateLimit?: RateLimitOptions };

// The caller's account, not its address: one user cannot escape the limit by
// changing address, and users behind one address (an office, a carrier's NAT)
// do not share it. The address only stands in should a route without a
// session ever use this limit.
const callerKey = (request: FastifyRequest): string => (request.principal ? `user:${request.principal.userId}` : `ip:${clientAddressOf(request)}`);

/**
 * A per-user limit is checked in preParsing, after authentication (onRequest)
 * has named the user and before the body is read, so a refused request costs
 * neither parsing nor validation, and invalid requests count like the others.
 */
function sessionRateLimit(config: Config, limit: SessionLimit): RateLimitOptions | undefined {
  const { rateLimits } = config;
  if (!rateLimits.enabled || limit === 'none') return undefined;
  const max = limit === 'writes' ? rateLimits.writesPerMinute : rateLimits.publicPerMinute;
  return { max, timeWindow: 60_000, hook: 'preParsing', keyGenerator: callerKey };
}

/** A per-address limit is checked on the request (onRequest), before anything else is done for it. */
function publicRateLimit(config: Config, limit: PublicLimit): RateLimitOptions | undefined {
  const { rateLimits } = config;
  if (!rateLimits.enabled || limit === 'none') return undefined;
  return { max: limit === 'reads' ? rateLimits.publicPerMinute : rateLimits.authPerMinute, timeWindow: 60_000 };
}

function routeConfig(flags: RouteFlags, auth: boolean, rateLimit: RateLimitOptions | undefined): RouteConfig {
  return {
    ...(auth ? { auth: true } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    ...(flags.idempotent ? { idempotent: true } : {}),
    ...(flags.secretParams ? { secretParams: flags.secretParams } : {}),
  };
}

function completed<S extends RouteSchema>(schema: S, security: Security, added: Record<number, unknown>) {
  return { ...schema, security, response: { ...added, ...schema.response } };
}

/**
 * A route for a signed-in caller: 401 before anything else without a live
 * session (src/http/auth.ts), the caller from principalOf(request), and every
 * answer `Cache-Control: no-store` (src/http/response-headers.ts).
 */
export function sessionRoute<S extends RouteSchema, E = typeof ERROR_ANSWER>(
  app: Pick<FastifyInstance, 'ctx'>,
  options: AccessOptions<SessionLimit, S, E>,
): { config: RouteConfig; schema: Completed<S, 401 | 429, E> } {
  const answer = options.errorAnswer ?? ERROR_ANSWER;
  const added = options.limit === 'none' ? { 401: answer } : { 401: answer, 429: answer };
  return {
    config: routeConfig(options, true, sessionRateLimit(app.ctx.config, options.limit)),
    schema: completed(options.schema, COOKIE_AUTH, added) as Completed<S, 401 | 429, E>,
  };
}

/** A route anyone may call, whose answer is the same with or without a session (no session is read). */
export function publicRoute<S extends RouteSchema, E = typeof ERROR_ANSWER>(
  app: Pick<FastifyInstance, 'ctx'>,
  options: AccessOptions<PublicLimit, S, E>,
): { config: RouteConfig; schema: Completed<S, 429, E> } {
  const added = options.limit === 'none' ? {} : { 429: options.errorAnswer ?? ERROR_ANSWER };
  return {
    config: routeConfig(options, false, publicRateLimit(app.ctx.config, options.limit)),
    schema: completed(options.schema, PUBLIC, added) as Completed<S, 429, E>,
  };
}

/**
 * A public read that answers more with a session (the caller's rank, a
 * private league they belong to): the caller, or null without a live session
 * (never 401), is `request.principal` when the handler runs, and the answer,
 * differing by cookie, is `Cache-Control: private, no-store`. Limited per
 * address at the public reads' rate.
 */
export function optionalSessionRoute<S extends RouteSchema>(
  app: FastifyInstance,
  options: { schema: S },
): {
  config: RouteConfig;
  schema: Completed<S, 429, typeof ERROR_ANSWER>;
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
} {
  return {
    ...publicRoute(app, { limit: 'reads', schema: options.schema }),
    // After validation, as the handler: a refused request reads no session and is not marked.
    preHandler: async (request, reply) => {
      request.principal = await optionalPrincipal(app, request);
      reply.header('cache-control', 'private, no-store');
    },
  };
}
