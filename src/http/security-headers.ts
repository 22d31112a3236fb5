// Security headers, chosen with helmet. Documents (the web app's and the API
// docs' pages, the few server-rendered pages, and whatever a browser might
// run as a document or a worker: SVG, XML, scripts, unknown types) get
// helmet's full set: CSP, HSTS, framing, referrer and the rest. Every answer
// a browser never runs (JSON, styles, images, fonts, plain text, CSV) gets the
// short set OWASP's REST cheat sheet asks of an API: a page's policy would
// only add bytes to every answer.
//
// The set is chosen by the answer's content type, not by its route: one route
// can answer either (an HTML page route's JSON error, a JSON route's 404), so
// the choice waits for onSend. The sets never change while the process runs,
// so helmet computes each one once at start; an answer only copies its
// precomputed headers (helmet per answer re-parsed its options every time).
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** Helmet's options for documents: HTML pages, and anything a browser may run as one (see headerSetFor). */
export function pageHelmetOptions(publicUrl: string): HelmetOptions {
  const https = publicUrl.startsWith('https:');
  return {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    strictTransportSecurity: https,
  };
}

/** Helmet's options for a JSON answer (or any a browser never runs): nothing may run, frame, sniff or embed it cross-origin; HSTS behind https. */
export function apiHelmetOptions(publicUrl: string): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xContentTypeOptions: true,
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    strictTransportSecurity: publicUrl.startsWith('https:'),
    // Every header below only means something to a page a browser renders.
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  };
}

/**
 * Types a browser never runs as a document or a worker: JSON (any +json),
 * styles, images other than SVG, fonts, media, plain text, CSV and Markdown.
 * With nosniff none of them is read as another type.
 */
const INERT_TYPE = /^(?:(?:application\/(?:[\w.+-]+\+)?json|text\/(?:css|plain|csv|markdown))(?:$|[\s;])|image\/(?!svg)|font\/|audio\/|video\/)/i;

/**
 * Which set an answer of this content type gets: 'api' for the inert types
 * above, 'page' for everything else (HTML, XHTML, SVG, XML, scripts, which a
 * service worker runs under its own answer's CSP, and types not known here).
 */
export function headerSetFor(contentType: unknown): 'api' | 'page' {
  return typeof contentType === 'string' && INERT_TYPE.test(contentType) ? 'api' : 'page';
}

type HeaderSet = ReadonlyArray<readonly [string, string]>;

/** The headers helmet sets with these options, computed by running its middleware once against a recorder. */
export function helmetHeaders(options: HelmetOptions): HeaderSet {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
  });
  return [...headers];
}

/**
 * Registers an onSend hook applying, to every answer, the set headerSetFor
 * chooses by its content type (untyped: the page set). An answer that chose its
 * own content-security-policy keeps it. Call before the routes are registered:
 * route plugins' own onSend hooks (local-pay-pages.ts widens form-action) run
 * after this one and see its CSP.
 */
export async function installSecurityHeaders(app: FastifyInstance, publicUrl: string): Promise<void> {
  const page = helmetHeaders(pageHelmetOptions(publicUrl));
  const api = helmetHeaders(apiHelmetOptions(publicUrl));
  app.addHook('onSend', (_request, reply, payload, done) => {
    const set = headerSetFor(reply.getHeader('content-type')) === 'api' ? api : page;
    const ownCsp = reply.hasHeader('content-security-policy');
    for (const [name, value] of set) {
      if (ownCsp && name === 'content-security-policy') continue;
      reply.header(name, value);
    }
    done(null, payload);
  });
}
