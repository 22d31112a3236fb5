// Answers that are the same for every caller and may be a second old (the
// shared answers of src/services/shared-answers.ts) say so, so a proxy in front
// of several instances (deploy/nginx/) can answer a burst of them itself. Their
// bytes (the JSON and each compressed form) are made once per answer object,
// which the shared cache keeps for at most SHARED_ANSWER_TTL_MS, instead of
// being serialized and compressed again for every request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SHARED_ANSWER_TTL_MS } from '../services/shared-answers.js';
import { type EncodedBody, sendEncoded } from './compression.js';

const SHARED_FOR_A_MOMENT = `public, max-age=${Math.ceil(SHARED_ANSWER_TTL_MS / 1000)}`;

/** Sends a shared answer: see sharedAnswerSender. */
type SendShared = (request: FastifyRequest, reply: FastifyReply, answer: object) => FastifyReply;

/**
 * A sender of successful answers everyone reads alike, marked as shareable
 * (an error thrown before it is called is never marked): serialized by the
 * route's response schema and compressed as the client accepts, both at most
 * once per answer object. Each route module makes its own when it registers,
 * so what it keeps lives as long as that app.
 */
export function sharedAnswerSender(): SendShared {
  // Kept on the answer object itself, under a key of this sender's own, so
  // it lives exactly as long as the shared cache (or the request, for an
  // answer made afresh) holds the object. Not in a WeakMap: V8's young
  // collections keep a WeakMap's keys alive, so every answer made for one
  // request (a bet page) would be promoted to the old generation with its
  // entry, and at thousands a second that forces a full collection every
  // second or so (docs/performance.md, "Where the time goes").
  // Each kind of answer is sent by one route, so one serialization fits it.
  const ENCODED = Symbol('encoded answer');
  return (request, reply, answer) => {
    reply.header('cache-control', SHARED_FOR_A_MOMENT);
    const keeper = answer as { [ENCODED]?: EncodedBody };
    let encoded = keeper[ENCODED];
    if (!encoded) {
      encoded = { plain: reply.serialize(answer) as string };
      // Not enumerable: the answer's JSON and every comparison of it stay as they were.
      if (Object.isExtensible(answer)) Object.defineProperty(answer, ENCODED, { value: encoded });
    }
    reply.type('application/json; charset=utf-8');
    return sendEncoded(request, reply, encoded);
  };
}
