// One loopback name for the browser: the session cookie belongs to the host
// it was set on, so an app opened at 127.0.0.1 while PUBLIC_URL says
// localhost (the default) would lose the session on every link the service
// builds with PUBLIC_URL (checkout, portal, chat link page). When PUBLIC_URL
// is a loopback address, a GET of the web app's or the local providers'
// pages on another loopback name of the same port is sent to PUBLIC_URL's
// host first. API paths never redirect: clients call them by any name.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The browser pages besides the web app (DESIGN: the local provider's and the local chat link page). */
const LOCAL_PAGES = ['/pay/local/', '/chat/local/link/'];

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

const effectivePort = (u: URL): string => u.port || (u.protocol === 'https:' ? '443' : '80');

/** The address to send this request to instead, or null to answer it here. */
export function loopbackRedirect(
  publicUrl: string,
  webMount: string | null,
  request: Pick<FastifyRequest, 'method' | 'url' | 'host'>,
): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const target = new URL(publicUrl);
  if (!isLoopbackHost(target.hostname)) return null;
  const path = request.url.split('?')[0] ?? '';
  const page = LOCAL_PAGES.some((p) => path.startsWith(p)) || (webMount !== null && (path === webMount.slice(0, -1) || path.startsWith(webMount)));
  if (!page) return null;
  let asked: URL;
  try {
    asked = new URL(`${target.protocol}//${request.host}`);
  } catch {
    return null;
  }
  if (!isLoopbackHost(asked.hostname) || asked.hostname === target.hostname.toLowerCase()) return null;
  if (effectivePort(asked) !== effectivePort(target)) return null;
  return `${target.origin}${request.url}`;
}

/** Installed before the routes, so the redirect comes before a page's own checks (its session, its 404). */
export function installLoopbackRedirect(app: FastifyInstance, webMount: string | null): void {
  const { publicUrl } = app.ctx.config;
  if (!isLoopbackHost(new URL(publicUrl).hostname)) return;
  app.addHook('onRequest', async (request, reply) => {
    const to = loopbackRedirect(publicUrl, webMount, request);
    if (to !== null) return reply.redirect(to, 307);
  });
}
