// Answers that are the same for every caller and may be a second old (the
// shared answers of src/services/shared-answers.ts) say so, so a proxy in front
// of several instances (deploy/nginx/) can answer a burst of them itself.
import type { FastifyReply } from 'fastify';
import { SHARED_ANSWER_TTL_MS } from '../services/shared-answers.js';

const SHARED_FOR_A_MOMENT = `public, max-age=${Math.ceil(SHARED_ANSWER_TTL_MS / 1000)}`;

/** Marks a successful answer as shareable (an error thrown before this is never marked); returns the answer. */
export function shareBriefly<T>(reply: FastifyReply, answer: T): T {
  reply.header('cache-control', SHARED_FOR_A_MOMENT);
  return answer;
}
