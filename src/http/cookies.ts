// The session cookie, read and written without a framework plugin: a plugin's
// hooks would run on every request (parsing a Cookie header no route reads,
// checking for cookies to write), while only the routes that need a session
// read it and only login and logout write it.
import { parseCookie, stringifySetCookie, type SetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The value of one cookie of the request; undefined when absent. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
}

/** Adds a Set-Cookie header to the answer (Fastify appends to any set before). */
export function addSetCookie(reply: FastifyReply, cookie: SetCookie): void {
  reply.header('set-cookie', stringifySetCookie(cookie));
}
