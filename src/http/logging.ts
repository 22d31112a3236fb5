// What a request looks like in the logs: one line when it ends, built from
// known fields only. No headers (cookies, signatures and secret tokens never
// get there), no body, no values of secret-looking query parameters, and no
// path parameters that a route declares secret. The serializers below are
// what keeps secrets out: each builds its object from named fields, so there
// is no redaction pass to walk every logged object looking for secret keys.
import {
  type FastifyInstance,
  type FastifyLoggerOptions,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';

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

/** Error fields worth a line; any other property an error carries (a driver's parameters, a client's config) stays out. */
const ERROR_FIELDS = ['type', 'message', 'stack', 'code', 'errno', 'syscall', 'statusCode', 'constraint', 'table', 'aggregateErrors'] as const;

function errorForLog(err: unknown): unknown {
  // Not an error (a 5xx answer's body, a message): logged as given, as pino does.
  if (!(err instanceof Error)) return err;
  // pino's serializer: the type, and the message and stack with their causes'.
  const full = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  const shown: Record<string, unknown> = {};
  for (const field of ERROR_FIELDS) {
    const value = full[field];
    if (value === undefined) continue;
    shown[field] = field === 'aggregateErrors' && Array.isArray(value) ? value.map((e: { raw?: unknown }) => errorForLog(e.raw ?? e)) : value;
  }
  return shown;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url, secretRouteOf(request)),
      remoteAddress: request.ip,
    };
  },
  res(reply: FastifyReply) {
    return { statusCode: reply.statusCode };
  },
  err: errorForLog,
};

/** A request that failed (5xx): its line carries the error, at this level, instead of a line of its own. */
interface Failure {
  err: unknown;
  level: 'warn' | 'error';
}
const failures = new WeakMap<FastifyRequest, Failure>();

/**
 * Says why a request failed. The error is logged on the request's one line
 * when the answer is sent (see RequestLog), so a failure costs no second line.
 */
export function noteFailure(request: FastifyRequest, err: unknown, level: Failure['level'] = 'error'): void {
  failures.set(request, { err, level });
}

/**
 * One line a request, written when its answer is sent: method, url, client
 * address, status, response time (ms) and request id, and the error when it
 * failed. Fastify's default writes two, one when the request arrives and one
 * when it ends; the first says nothing the second does not.
 */
class RequestLog extends LogController {
  /** At debug level only (LOG_LEVEL=debug): a request that never ends still shows it began. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Logged as aborted already (installRequestLog); a socket gone cannot finish the answer anyway.
    if (request.raw.aborted) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...line, err: error }, 'request errored');
      return;
    }
    const failure = failures.get(request);
    if (failure === undefined) reply.log.info(line, 'request completed');
    else reply.log[failure.level]({ ...line, err: failure.err }, 'request completed');
  }
}

/**
 * The service's logger and request log as Fastify options: its level, the
 * serializers above and the destination. The bench's hello world
 * (bench/hello-server.ts) builds its server from these too, so it logs each
 * request exactly as the service does.
 */
export function loggingOptions(
  level: string,
  stream: DestinationStream,
  overrides: Partial<LoggerOptions> & { stream?: DestinationStream } = {},
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  // Fastify's types expect every err to be an error; a non-error passes through unchanged, as with pino's own.
  const serializers = logSerializers as FastifyLoggerOptions['serializers'];
  return { logger: { level, serializers, stream, ...overrides }, logController: new RequestLog() };
}

/**
 * A request whose client went away before its answer was sent: its one line,
 * written then, since no answer will end it. Call on any app built with
 * loggingOptions.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequestAbort', (request, done) => {
    request.log.info({ req: request }, 'request aborted');
    done();
  });
}

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
