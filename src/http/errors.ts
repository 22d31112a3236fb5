// The one mapping from errors to HTTP: SPEC part 7's shapes, never a stack
// trace or an internal message in a body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { noteFailure } from './logging.js';

const PASS_THROUGH: Record<string, { status: number; error: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, error: 'Unsupported content type: send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, error: 'Invalid Content-Length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'Request body is empty but declared as JSON' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'Request body is not valid JSON' },
};

/**
 * Errors Fastify raises before routing (a malformed percent-escape, an
 * over-long path segment) bypass the error handler; without this they
 * answer in Fastify's own shape and echo the path.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err.code === 'FST_ERR_BAD_URL') return reply.code(400).send({ error: 'Malformed URL' });
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return reply.code(414).send({ error: 'URL path segment is too long' });
  noteFailure(request, err);
  return reply.code(500).send({ error: 'Internal server error' });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      if (err.statusCode >= 500) noteFailure(request, err.body, 'warn');
      return reply.code(err.statusCode).send(err.body);
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      return reply.code(400).send({ error: `Invalid request: ${fe.message}` });
    }
    const known = fe.code ? PASS_THROUGH[fe.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.error });
    const status = fe.statusCode ?? 500;
    if (status === 429) {
      return reply.code(429).send({ error: 'Too many requests, retry later' });
    }
    if (status >= 400 && status < 500) {
      // Fastify's own 4xx errors (bad JSON, prototype poisoning, …) carry safe messages.
      const message = err instanceof SyntaxError ? 'Request body is not valid JSON' : fe.message;
      return reply.code(status).send({ error: message });
    }
    noteFailure(request, err);
    return reply.code(500).send({ error: 'Internal server error' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
  });
}
