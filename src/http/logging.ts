// What a request looks like in the logs: no headers (cookies, signatures and
// secret tokens never get there) and no values of secret-looking query parameters.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger as PinoLogger } from 'pino';

const SECRET_PARAM = /code|token|password|secret|key|signature/i;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
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
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      remoteAddress: request.ip,
    };
  },
};

type LogMethod = (...args: unknown[]) => void;
type Logger = PinoLogger;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/**
 * Each request's logger, made only when something is logged at an enabled
 * level. Fastify gives every request a child logger with its id; pino's child
 * (bindings serialized, redaction applied) costs more than the rest of a cached
 * answer, and nearly every request logs nothing above the configured level.
 */
class LazyRequestLogger {
  private made: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  private logger(): Logger {
    this.made ??= this.parent.child(this.bindings, this.opts);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.opts.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, opts);
  }

  isLevelEnabled(level: string): boolean {
    return this.made ? this.made.isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }
}
interface LazyRequestLogger extends Record<(typeof LEVELS)[number], LogMethod> {}
for (const level of LEVELS) {
  LazyRequestLogger.prototype[level] = function (this: LazyRequestLogger, ...args: unknown[]) {
    if (this.isLevelEnabled(level)) (this as unknown as { logger(): Logger }).logger()[level](...(args as [string]));
  };
}

/** Fastify's childLoggerFactory: a lazy child, or pino's own when the route sets its own level. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  const pino = logger as unknown as Partial<PinoLogger>;
  if (opts.level !== undefined || typeof pino.isLevelEnabled !== 'function') return logger.child(bindings, opts);
  return new LazyRequestLogger(pino as PinoLogger, bindings, opts) as unknown as FastifyBaseLogger;
}
