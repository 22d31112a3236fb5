// Compression of answers: one setting for @fastify/compress (every answer
// above the threshold) and for the shared answers, whose bytes are made once
// per answer instead of once per request (src/http/cache-control.ts).
import { negotiate } from '@fastify/accept-negotiator';
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

export function compressText(encoding: Encoding, text: string): Buffer {
  return encoding === 'br' ? brotliCompressSync(text, BROTLI_OPTIONS) : gzipSync(text);
}
