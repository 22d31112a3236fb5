// Sends JSON that the route's own serializer already made (a cached answer).
// Fastify sends a string with a JSON content type as it is; the typed reply
// only knows the schema's object shape, hence the cast.
import type { FastifyReply } from 'fastify';

export function sendSerialized(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json as never);
}
