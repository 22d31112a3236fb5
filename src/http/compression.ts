// Compression of answers, chosen by size and by how often the bytes are made
// (compressionFor):
//  - below COMPRESS_THRESHOLD an answer goes plain: the headers outweigh the saving;
//  - an answer made once and sent many times (the shared answers,
//    src/http/cache-control.ts, and the fixed documents and assets,
//    src/http/fixed-answers.ts) is compressed once per encoding, at ONCE;
//  - every other answer (a session's /portfolio, /history, /feed, any answer
//    made per request) is compressed on every request by @fastify/compress,
//    at PER_REQUEST: a cheap level, since the cost is paid each time, in one
//    call on the event loop up to PER_REQUEST_INLINE_LIMIT and streamed
//    through the thread pool above it.
// bench/compression-levels.ts measures the CPU time and size of each level on
// a /feed answer, to check the choice.
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BrotliOptions, brotliCompressSync, constants, gzipSync, type ZlibOptions } from 'node:zlib';

export const COMPRESS_THRESHOLD = 1024;
export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The options of each encoding at one level of effort. */
export interface Levels {
  readonly brotli: BrotliOptions;
  readonly gzip: ZlibOptions;
}

/**
 * Answers compressed once: brotli at quality 4 (@fastify/compress's default)
 * with a 256 KiB window instead of 4 MiB: our answers are a few KiB to a few
 * hundred, and brotli allocates and clears its whole window for each one,
 * which costs more than compressing. Gzip at zlib's default level (6).
 */
export const ONCE: Levels = {
  brotli: {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 4,
      [constants.BROTLI_PARAM_LGWIN]: 18,
    },
  },
  gzip: {},
};

/**
 * Answers compressed on every request: brotli at quality 1 and gzip at level
 * 1. Brotli's qualities 0 and 1 take a fast path of their own (a small hash
 * table, no window to set up), where 2 to 4 set up the general one; quality 1
 * makes the second pass that 0 skips, for smaller answers at little cost.
 */
export const PER_REQUEST: Levels = {
  brotli: {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_LGWIN]: 18,
    },
  },
  gzip: { level: 1 },
};

/**
 * Per-request answers up to this size are compressed in one call on the event
 * loop (at PER_REQUEST's levels, a fraction of a millisecond); larger ones are
 * streamed through the thread pool, so one huge answer cannot hold the loop.
 * @fastify/compress's own default, 8 KiB on two cores, would stream a 25 KB
 * /feed: a stream and its callbacks cost more than compressing it.
 */
export const PER_REQUEST_INLINE_LIMIT = 64 * 1024;

export interface CompressionChoice {
  levels: Levels;
  /** Compressed in one call on the event loop, rather than streamed through the thread pool. */
  inline: boolean;
}

/**
 * How an answer of this many bytes is compressed: null when it goes plain;
 * `shared` when its bytes are made once and sent to many (compressed once, kept).
 */
export function compressionFor(bytes: number, shared: boolean): CompressionChoice | null {
  if (bytes < COMPRESS_THRESHOLD) return null;
  if (shared) return { levels: ONCE, inline: true };
  return { levels: PER_REQUEST, inline: bytes <= PER_REQUEST_INLINE_LIMIT };
}

/** @fastify/compress's options for the answers it compresses, all per request: compressionFor(size, false) for any size. */
export const PER_REQUEST_PLUGIN_OPTIONS = {
  threshold: COMPRESS_THRESHOLD,
  syncThreshold: PER_REQUEST_INLINE_LIMIT,
  encodings: [...ENCODINGS],
  brotliOptions: PER_REQUEST.brotli,
  zlibOptions: PER_REQUEST.gzip,
};

/** The encoding an Accept-Encoding header prefers among ours, as @fastify/compress negotiates it; null: send it plain. */
export function preferredEncoding(header: string | undefined): Encoding | null {
  if (header === undefined) return null;
  const chosen = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...ENCODINGS]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

export function compressText(encoding: Encoding, text: string | Buffer, levels: Levels): Buffer {
  return encoding === 'br' ? brotliCompressSync(text, levels.brotli) : gzipSync(text, levels.gzip);
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
  const choice = compressionFor(body.plain.length, true);
  if (choice === null) return reply.send(body.plain);
  reply.header('vary', 'accept-encoding');
  const encoding = preferredEncoding(request.headers['accept-encoding']);
  if (encoding === null) return reply.send(body.plain);
  body[encoding] ??= compressText(encoding, body.plain, choice.levels);
  reply.header('content-encoding', encoding);
  return reply.send(body[encoding]);
}
