// Every per-address limit (the rate limits, the login throttle, the hash
// queue's share, the mail limits) keys a client by this, never by request.ip
// itself: see src/lib/client-address.ts.
import type { FastifyRequest } from 'fastify';
import { clientAddressKey } from '../lib/client-address.js';

/** The key the request's client counts under in per-address limits (its IPv6 network, its IPv4 address). */
export function clientAddressOf(request: FastifyRequest): string {
  return clientAddressKey(request.ip, request.server.ctx.config.ipv6PrefixLength);
}
