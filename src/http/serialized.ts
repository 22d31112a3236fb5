// Answers served from an AnswerCache: made and serialized once per key and
// period with the route's own serializer (its 200 response schema), then sent
// as they are (UTF-8 bytes). Fastify sends a string or a Buffer untouched; the
// typed reply only knows the schema's object shape, hence the cast.
import type { FastifyReply } from 'fastify';
import type { AnswerCache } from '../lib/answer-cache.js';
import { BoundedMap } from '../lib/bounded-map.js';

export function sendSerialized(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json as never);
}

export interface Answer<T> {
  value: T;
  /** Users the answer depends on, found while making it. */
  deps?: readonly number[];
}

export async function sendCached<T>(
  reply: FastifyReply,
  cache: AnswerCache,
  key: string,
  knownDeps: readonly number[],
  make: () => Promise<Answer<T>>,
): Promise<FastifyReply> {
  const serialize = (reply.getSerializationFunction('200') as ((v: unknown) => string) | undefined) ?? JSON.stringify;
  const body = await cache.get(
    key,
    async () => {
      const { value, deps } = await make();
      return { json: serialize(value), deps };
    },
    knownDeps,
  );
  return sendSerialized(reply, body);
}

/** Each key's answer serialized for its latest value, made again only when the value changes. */
export class LatestSerialized<V> {
  private readonly latest: BoundedMap<string, { value: V; body: Buffer }>;

  constructor(maxKeys: number) {
    this.latest = new BoundedMap(maxKeys);
  }

  bytes(key: string, value: V, serialize: (value: V) => string): Buffer {
    const hit = this.latest.get(key);
    if (hit !== undefined && Object.is(hit.value, value)) return hit.body;
    const body = Buffer.from(serialize(value));
    this.latest.set(key, { value, body });
    return body;
  }
}
