// Serves the built single-page app (web/dist) at the path of WEB_URL, same
// origin as the API so the session cookie just works. Deep links fall back to
// index.html; when the app was never built the service still runs and says how
// to build it instead of crashing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { betPreview, type LinkPreview, profilePreview } from '../services/link-previews.js';

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

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };

/** Text made safe for HTML, in an element or a quoted attribute alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&"'<>]/g, (c) => HTML_ESCAPES[c]);
}

/** The head tags a preview reads; the page's own defaults for them are replaced. */
const PREVIEW_TAG = /\s*<(?:title>[^<]*<\/title>|meta\s+(?:name|property)="(?:description|og:[a-z_]+|twitter:[a-z_]+)"[^>]*>)/gi;

/**
 * The page with a public page's own `<title>` and link-preview tags (Open
 * Graph, Twitter's card, the description), escaped: preview crawlers run no
 * JavaScript, so what a shared link shows must be in the HTML the server sends.
 */
export function withPreview(html: string, preview: LinkPreview, url: string): string {
  const title = escapeHtml(preview.title);
  const description = escapeHtml(preview.description);
  const tags = [
    `<title>${title}</title>`,
    `<meta name="description" content="${description}">`,
    '<meta property="og:type" content="website">',
    '<meta property="og:site_name" content="Paper Bets">',
    `<meta property="og:title" content="${title}">`,
    `<meta property="og:description" content="${description}">`,
    `<meta property="og:url" content="${escapeHtml(url)}">`,
    '<meta name="twitter:card" content="summary">',
    `<meta name="twitter:title" content="${title}">`,
    `<meta name="twitter:description" content="${description}">`,
  ].join('');
  const page = html.replace(PREVIEW_TAG, '');
  const head = /<head(\s[^>]*)?>(<base [^>]*>)?/i.exec(page);
  const at = head ? head.index + head[0].length : 0;
  return page.slice(0, at) + tags + page.slice(at);
}

/**
 * The page with `<base href="MOUNT">` first in its head. The build names its
 * assets relative to the page (web/vite.config.ts), so one build runs under any
 * WEB_URL; the base makes them resolve from deep links (/app/bet/42) too, and
 * tells the client router where the app is mounted.
 */
export function withBase(html: string, mount: string): string {
  const tag = `<base href="${escapeHtml(mount)}">`;
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

  const sendIndex = (reply: FastifyReply, html = indexHtml) => {
    if (html === null) {
      return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    }
    // The page names the hashed assets of the current build: always revalidate it.
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  /**
   * A public page's index.html with its own title and preview tags; the plain
   * page for an id that names nothing. Its address is made from PUBLIC_URL and
   * the id alone: the request line may be absolute-form (any host) and Host is
   * the client's to say.
   */
  const sendPreviewed = async (reply: FastifyReply, page: 'user' | 'bet', id: string, find: (id: number) => Promise<LinkPreview | null>) => {
    const preview = indexHtml !== null && /^[1-9][0-9]{0,15}$/.test(id) ? await find(Number(id)) : null;
    const canonical = new URL(`${mount}${page}/${id}`, config.publicUrl).href;
    return sendIndex(reply, preview && indexHtml !== null ? withPreview(indexHtml, preview, canonical) : indexHtml);
  };

  await app.register(async (scope) => {
    if (indexHtml !== null) {
      await scope.register(fastifyStatic, {
        root: distDir,
        prefix: mount,
        wildcard: false,
        index: false,
        // Each text file has .br and .gz siblings from the build (web/vite.config.ts): sent as the client accepts, no CPU per request.
        preCompressed: true,
        // The build keeps its source maps beside the files for whoever debugs it; they are not published.
        allowedPath: (pathName) => !pathName.endsWith('.map'),
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
    scope.get<{ Params: { id: string } }>(`${mount}user/:id`, { schema: { hide: true } }, async (request, reply) =>
      sendPreviewed(reply, 'user', request.params.id, (id) => profilePreview(app.ctx, id)),
    );
    scope.get<{ Params: { id: string } }>(`${mount}bet/:id`, { schema: { hide: true } }, async (request, reply) =>
      sendPreviewed(reply, 'bet', request.params.id, (id) => betPreview(app.ctx, id)),
    );
    scope.get(`${mount}*`, { schema: { hide: true } }, async (request, reply) => {
      if (looksLikeAsset(request.url)) {
        return reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
      }
      return sendIndex(reply);
    });
  });
}
