// Cookies are parsed only where a route reads one: @fastify/cookie is
// registered without its parsing hook (which parsed every request's Cookie
// header into a fresh object, though only routes with a session read it),
// and setting or clearing a cookie works as usual.
import type { FastifyRequest } from 'fastify';

/** The value of one cookie of the request; undefined when absent. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? request.server.parseCookie(header)[name] : undefined;
}
