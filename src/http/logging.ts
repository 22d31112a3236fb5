// What a request looks like in the logs: no headers (cookies, signatures and
// secret tokens never get there), no values of secret-looking query
// parameters, and no path parameters that a route declares secret.
import type { FastifyRequest } from 'fastify';
import pino from 'pino';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Path parameters that are credentials (a link code): logged as
     * `[redacted]`. A route that takes a secret in its path says so here, so
     * the rule lives beside the path and cannot miss a route added later.
     */
    secretParams?: readonly string[];
  }
}

const SECRET_PARAM = /code|token|password|secret|key|signature/i;
const REDACTED = '[redacted]';

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed escape is logged as sent; it cannot be a known secret name anyway.
      }
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/** The route's path pattern (`/chat/local/link/:code`) and which of its parameters are secret. */
export interface SecretRoute {
  pattern: string;
  secretParams: readonly string[];
}

function redactPath(path: string, route: SecretRoute): string {
  const secret = new Set(route.secretParams);
  const carriesSecret = (segment: string) => [...segment.matchAll(/:(\w+)/g)].some((m) => secret.has(m[1] as string));
  const patternSegments = route.pattern.split('/');
  const segments = path.split('/');
  // Aligned segment by segment when the shapes match; otherwise the pattern
  // itself stands in, so a path the router normalised still hides the secret.
  const source = segments.length === patternSegments.length ? segments : patternSegments;
  return source.map((segment, i) => (carriesSecret(patternSegments[i] as string) ? REDACTED : segment)).join('/');
}

export function redactUrl(url: string, route?: SecretRoute): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const shownPath = route && route.secretParams.length > 0 ? redactPath(path, route) : path;
  return q < 0 ? shownPath : `${shownPath}?${redactQuery(url.slice(q + 1))}`;
}

function secretRouteOf(request: FastifyRequest): SecretRoute | undefined {
  const options = request.routeOptions;
  const secretParams = options?.config?.secretParams;
  return secretParams && options.url ? { pattern: options.url, secretParams } : undefined;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url, secretRouteOf(request)),
      remoteAddress: request.ip,
    };
  },
};

/**
 * Where request logs go: standard output, written asynchronously in chunks
 * of at least 4 KiB and at least every quarter second. Written synchronously,
 * a pipe whose reader lags (any log collector, now and then) answers EAGAIN,
 * on which pino's writer sleeps 100 ms on the event loop: every request in
 * flight waits. Asynchronously a lagging reader only grows the buffer (up to
 * 16 MiB, then lines are dropped rather than memory spent), and a line costs
 * no system call of its own. pino writes what is buffered when the process
 * exits; the app's close flushes it too.
 */
export type LogDestination = ReturnType<typeof pino.destination>;

export function logDestination(): LogDestination {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, maxLength: 16 * 1024 * 1024, periodicFlush: 250 });
}
