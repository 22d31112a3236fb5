// Compression of answers: one setting for @fastify/compress (every answer
// above the threshold) and for the answers whose bytes are made once instead
// of once per request: the shared answers (src/http/cache-control.ts) and the
// fixed documents and assets (src/http/fixed-answers.ts).
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const COMPRESS_THRESHOLD = 1024;
export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/**
 * Brotli at quality 4 (the plugin's default) with a 256 KiB window instead of
 * 4 MiB: our answers are a few KiB to a few hundred, and brotli allocates and
 * clears its whole window for each one, which costs more than compressing.
 */
export const BROTLI_OPTIONS = {
  params: {
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_QUALITY]: 4,
    [constants.BROTLI_PARAM_LGWIN]: 18,
  },
};

/** The encoding an Accept-Encoding header prefers among ours, as @fastify/compress negotiates it; null: send it plain. */
export function preferredEncoding(header: string | undefined): Encoding | null {
  if (header === undefined) return null;
  const chosen = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...ENCODINGS]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

export function compressText(encoding: Encoding, text: string | Buffer): Buffer {
  return encoding === 'br' ? brotliCompressSync(text, BROTLI_OPTIONS) : gzipSync(text);
}

/** A body and the compressed forms made of it so far: each made at most once, when first asked for. */
export interface EncodedBody {
  plain: string | Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/**
 * Sends the body as the client accepts it, compressing it only the first time
 * an encoding is asked for (the Content-Encoding it sets tells
 * @fastify/compress to leave the answer alone). The content type is the caller's.
 */
export function sendEncoded(request: FastifyRequest, reply: FastifyReply, body: EncodedBody): FastifyReply {
  if (body.plain.length < COMPRESS_THRESHOLD) return reply.send(body.plain);
  reply.header('vary', 'accept-encoding');
  const encoding = preferredEncoding(request.headers['accept-encoding']);
  if (encoding === null) return reply.send(body.plain);
  body[encoding] ??= compressText(encoding, body.plain);
  reply.header('content-encoding', encoding);
  return reply.send(body[encoding]);
}
