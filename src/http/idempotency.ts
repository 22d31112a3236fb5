// The Idempotency-Key header of writes (DESIGN), for every route marked
// `config: { idempotent: true }`: after authentication and validation the key
// is claimed (src/services/idempotency.ts); the write's answer, 2xx or 4xx, is
// stored with it on the way out; a 5xx, or no answer at all, frees it. A
// repeat gets the stored answer, 409 while the first still runs, 422 for
// another request under the same key. Without the header nothing changes.
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { AppError, badRequest } from '../errors.js';
import { claimKey, fingerprintOf, finishKey, type KeyOf, releaseKey } from '../services/idempotency.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Accepts Idempotency-Key (src/http/idempotency.ts); the route must also set `auth`. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The key this request holds in flight, until its answer is stored or the key freed. */
    idempotency: { key: KeyOf; claimedAt: number } | null;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Printable ASCII, as Stripe's keys (UUIDs fit); surrounding spaces are not part of a header value. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?$';
export const IDEMPOTENCY_KEY_MAX = 255;
const KEY_FORMAT = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export const IN_PROGRESS = 'A request with this Idempotency-Key is in progress';
export const KEY_REUSED = 'This Idempotency-Key was already used with another request (method, path or body)';

/** The answer's headers a replay repeats (the others are set afresh on every answer). */
const KEPT_HEADERS = ['content-type', 'retry-after', 'location'];

export function installIdempotency(app: FastifyInstance): void {
  const { ctx } = app;
  app.decorateRequest('idempotency', null);

  const claim: preHandlerAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return;
    if (typeof header !== 'string' || header.length > IDEMPOTENCY_KEY_MAX || !KEY_FORMAT.test(header)) {
      throw badRequest(`Invalid Idempotency-Key: 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`);
    }
    if (!request.principal) throw new Error('idempotent route without config.auth');
    const key = { userId: request.principal.userId, key: header };
    const outcome = await claimKey(ctx, key, fingerprintOf(request.method, request.url, request.body));
    switch (outcome.kind) {
      case 'claimed':
        request.idempotency = { key, claimedAt: outcome.claimedAt };
        return;
      case 'in-flight':
        throw new AppError(409, { error: IN_PROGRESS }, { 'retry-after': '1' });
      case 'mismatch':
        throw new AppError(422, { error: KEY_REUSED });
      case 'replay':
        for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
        reply.code(outcome.status).send(outcome.body);
        return reply;
    }
  };

  const settle = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> => {
    const held = request.idempotency;
    if (!held) return;
    request.idempotency = null;
    const status = reply.statusCode;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      if (status >= 500 || body === null) {
        await releaseKey(ctx, held.key, held.claimedAt);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await finishKey(ctx, held.key, held.claimedAt, { status, headers, body });
    } catch (err) {
      // The answer still goes out; the claim's lease frees the key later.
      request.log.warn({ err }, 'idempotency key not settled');
    }
  };

  const store: onSendHookHandler = (request, reply, payload, done) => {
    settle(request, reply, payload).then(
      () => done(null, payload),
      () => done(null, payload),
    );
  };

  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    const own = (hooks: unknown) => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);
    route.preHandler = [claim, ...own(route.preHandler)] as typeof route.preHandler;
    route.onSend = [...own(route.onSend), store] as typeof route.onSend;
    // No answer was sent (the connection went first and onSend never ran): free the key.
    route.onResponse = [
      ...own(route.onResponse),
      async (request: FastifyRequest) => {
        const held = request.idempotency;
        if (!held) return;
        request.idempotency = null;
        await releaseKey(ctx, held.key, held.claimedAt).catch((err) => request.log.warn({ err }, 'idempotency key not freed'));
      },
    ] as typeof route.onResponse;
  });
}
