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

type Asked = Pick<FastifyRequest, 'method' | 'url' | 'host'>;

/**
 * The redirect rule for one PUBLIC_URL and web mount, parsed once: the hook runs
 * on every request, and an API path leaves after a look at its method and path.
 */
export function loopbackRedirector(publicUrl: string, webMount: string | null): (request: Asked) => string | null {
  const target = new URL(publicUrl);
  if (!isLoopbackHost(target.hostname)) return () => null;
  const targetHost = target.hostname.toLowerCase();
  const targetPort = effectivePort(target);
  const appRoot = webMount === null ? null : webMount.slice(0, -1);
  return (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const page = LOCAL_PAGES.some((p) => path.startsWith(p)) || (webMount !== null && (path === appRoot || path.startsWith(webMount)));
    if (!page) return null;
    let asked: URL;
    try {
      asked = new URL(`${target.protocol}//${request.host}`);
    } catch {
      return null;
    }
    if (!isLoopbackHost(asked.hostname) || asked.hostname === targetHost) return null;
    if (effectivePort(asked) !== targetPort) return null;
    return `${target.origin}${request.url}`;
  };
}

/** The address to send this request to instead, or null to answer it here. */
export function loopbackRedirect(publicUrl: string, webMount: string | null, request: Asked): string | null {
  return loopbackRedirector(publicUrl, webMount)(request);
}

/** Installed before the routes, so the redirect comes before a page's own checks (its session, its 404). */
export function installLoopbackRedirect(app: FastifyInstance, webMount: string | null): void {
  const { publicUrl } = app.ctx.config;
  if (!isLoopbackHost(new URL(publicUrl).hostname)) return;
  const redirectOf = loopbackRedirector(publicUrl, webMount);
  // A callback hook rather than an async one: it runs on every request.
  app.addHook('onRequest', (request, reply, done) => {
    const to = redirectOf(request);
    if (to === null) return done();
    reply.redirect(to, 307);
  });
}
