// Answers that are the same bytes for every request while the app lives: the
// OpenAPI document (/openapi.json and the reference's /docs/json), /llms.txt
// and the API reference's scripts and styles. Each is made once, when first
// asked for, and compressed at most once per encoding (src/http/compression.ts):
// a flood of them costs neither serialization nor compression.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type EncodedBody, sendEncoded } from './compression.js';

export type SendFixed = (request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/** A body made by `make` on first use, then kept with its compressed forms. */
export function fixedBody(make: () => string | Buffer): () => EncodedBody {
  let body: EncodedBody | null = null;
  return () => {
    body ??= { plain: make() };
    return body;
  };
}

/** A sender of one fixed body as this content type. */
export function fixedAnswer(contentType: string, body: () => EncodedBody): SendFixed {
  return (request, reply) => sendEncoded(request, reply.type(contentType), body());
}

/** Where @fastify/swagger-ui keeps the reference's files. */
const REFERENCE_FILES = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static');
const ASSET_TYPES: Record<string, string> = { '.js': 'application/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

interface Asset {
  body: EncodedBody;
  /** Weak: every encoding of the file is the same content. */
  etag: string;
}

function loadAsset(file: string): Asset {
  const bytes = fs.readFileSync(file);
  return { body: { plain: bytes }, etag: `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
}

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*') === true;

function assetAnswer(file: string, contentType: string): SendFixed {
  let asset: Asset | null = null;
  return (request, reply) => {
    asset ??= loadAsset(file);
    // The file server's caching headers: revalidated each time, 304 when unchanged.
    reply.header('cache-control', 'public, max-age=0').header('etag', asset.etag).type(contentType);
    if (matches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
    return sendEncoded(request, reply, asset.body);
  };
}

/**
 * The reference's scripts and styles (up to 1.4 MB each) from bytes read once,
 * by routes of their full paths, which come before the file server's wildcard
 * under `${prefix}/static/`; its other files (images, a page) stay with it.
 */
export function installReferenceAssets(app: FastifyInstance, prefix: string): void {
  for (const name of fs.readdirSync(REFERENCE_FILES)) {
    const type = ASSET_TYPES[path.extname(name)];
    if (type === undefined) continue;
    app.get(`${prefix}/static/${name}`, { schema: { hide: true } }, assetAnswer(path.join(REFERENCE_FILES, name), type));
  }
}
