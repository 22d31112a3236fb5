// Serves the built single-page app (web/dist) at the path of WEB_URL, same
// origin as the API so the session cookie just works. Deep links fall back to
// index.html; when the app was never built the service still runs and says how
// to build it instead of crashing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const DEFAULT_WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Web app not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>The web app is not built yet</h1>
<p>The API works; only the browser app is missing. Build it with <code>npm run build:web</code>
(<code>npm install</code> and <code>npm start</code> do it for you), then reload this page.</p>
</body></html>`;

/** The mount path of the app: WEB_URL's path when it is on this server, e.g. '/app/'. */
export function webMountPath(webUrl: string, publicUrl: string): string | null {
  const web = new URL(webUrl);
  if (web.origin !== new URL(publicUrl).origin) return null;
  const p = web.pathname.endsWith('/') ? web.pathname : `${web.pathname}/`;
  // The API owns the root; an app mounted there would shadow it.
  return p === '/' ? null : p;
}

/** A path with a file extension asks for an asset, never for a page of the app. */
function looksLikeAsset(url: string): boolean {
  const pathname = url.split('?')[0];
  return /\.[A-Za-z0-9]+$/.test(pathname.slice(pathname.lastIndexOf('/') + 1));
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

/**
 * The page with `<base href="MOUNT">` first in its head. The build names its
 * assets relative to the page (web/vite.config.ts), so one build runs under any
 * WEB_URL; the base makes them resolve from deep links (/app/bet/42) too, and
 * tells the client router where the app is mounted.
 */
export function withBase(html: string, mount: string): string {
  const tag = `<base href="${mount.replace(/[&"<>]/g, (c) => HTML_ESCAPES[c])}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + tag + html.slice(head.index + head[0].length);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + tag + html.slice(at);
}

export async function installWebApp(app: FastifyInstance, distDir: string = DEFAULT_WEB_DIST): Promise<void> {
  const { config } = app.ctx;
  const mount = webMountPath(config.webUrl, config.publicUrl);
  if (mount === null) return;
  const bare = mount.slice(0, -1);

  app.get(bare, { schema: { hide: true } }, async (request, reply) => {
    const query = request.url.slice(bare.length);
    return reply.redirect(`${mount}${query.startsWith('?') ? query : ''}`, 301);
  });

  const indexFile = path.join(distDir, 'index.html');
  const indexHtml = fs.existsSync(indexFile) ? withBase(fs.readFileSync(indexFile, 'utf8'), mount) : null;

  const sendIndex = (reply: FastifyReply) => {
    if (indexHtml === null) {
      return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    }
    // The page names the hashed assets of the current build: always revalidate it.
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };

  await app.register(async (scope) => {
    if (indexHtml !== null) {
      await scope.register(fastifyStatic, {
        root: distDir,
        prefix: mount,
        wildcard: false,
        index: false,
        decorateReply: false,
        schemaHide: true,
        cacheControl: false,
        setHeaders: (res, filePath) => {
          const hashed = filePath.startsWith(path.join(distDir, 'assets') + path.sep);
          res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
    }
    scope.get(mount, { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
    scope.get(`${mount}*`, { schema: { hide: true } }, async (request, reply) => {
      if (looksLikeAsset(request.url)) {
        return reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
      }
      return sendIndex(reply);
    });
  });
}
