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
  // Keyed by the answer object itself: an entry lives exactly as long as the
  // shared cache (or the request, for an answer made afresh) holds its object.
  // Each kind of answer is sent by one route, so one serialization fits it.
  const encodedAnswers = new WeakMap<object, EncodedBody>();
  return (request, reply, answer) => {
    reply.header('cache-control', SHARED_FOR_A_MOMENT);
    let encoded = encodedAnswers.get(answer);
    if (!encoded) {
      encoded = { plain: reply.serialize(answer) as string };
      encodedAnswers.set(answer, encoded);
    }
    reply.type('application/json; charset=utf-8');
    return sendEncoded(request, reply, encoded);
  };
}
