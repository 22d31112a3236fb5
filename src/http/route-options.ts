// Route options shared by several route modules.
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/** Route config for public reads: the per-client rate limit when limits are on. */
export function publicRateLimit(config: Config): { rateLimit?: { max: number; timeWindow: number } } {
  return config.rateLimits.enabled ? { rateLimit: { max: config.rateLimits.publicPerMinute, timeWindow: 60_000 } } : {};
}

// The caller's account, not its address: one user cannot escape the limit by
// changing address, and users behind one address (an office, a carrier's NAT)
// do not share it. The address only stands in should a route without a
// session ever use this limit.
const callerKey = (request: FastifyRequest): string => (request.principal ? `user:${request.principal.userId}` : `ip:${request.ip}`);

/**
 * Route config for authenticated writes: `{ auth: true }` plus, when limits
 * are on, a per-user limit on this route. It is checked in preParsing, after
 * authentication (onRequest) has named the user and before the body is read,
 * so a refused request costs neither parsing nor validation, and invalid
 * requests count like the others.
 */
export function authenticatedWrite(config: Config): { auth: true; rateLimit?: RateLimitOptions } {
  if (!config.rateLimits.enabled) return { auth: true };
  return {
    auth: true,
    rateLimit: { max: config.rateLimits.writesPerMinute, timeWindow: 60_000, hook: 'preParsing', keyGenerator: callerKey },
  };
}

/**
 * Route config for a signed-in read that costs more than one query bounded by
 * the caller's own data (GET /me/standing counts over every window): `{ auth:
 * true }` plus, when limits are on, a per-user limit at the public reads' rate.
 */
export function authenticatedCostlyRead(config: Config): { auth: true; rateLimit?: RateLimitOptions } {
  if (!config.rateLimits.enabled) return { auth: true };
  return {
    auth: true,
    rateLimit: { max: config.rateLimits.publicPerMinute, timeWindow: 60_000, hook: 'preParsing', keyGenerator: callerKey },
  };
}
