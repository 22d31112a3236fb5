// Security headers, set by @fastify/helmet. Pages (the web app, the API docs,
// the few server-rendered pages) get helmet's full set: CSP, HSTS, framing,
// referrer and the rest. JSON answers get the short set OWASP's REST cheat
// sheet asks of an API: a browser never renders them, so a page's policy would
// only add bytes to every answer.
//
// The set is chosen by the answer's content type, not by its route: one route
// can answer either (an HTML page route's JSON error, a JSON route's 404), so
// the choice waits for onSend, where helmet is applied through reply.helmet()
// rather than the plugin's own onRequest hook.
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

// helmet's own option type, as the plugin takes it (helmet is the plugin's dependency, not ours).
type HelmetOptions = NonNullable<Parameters<FastifyReply['helmet']>[0]>;

/** Helmet's options for HTML pages (and anything that is not JSON: assets, downloads). */
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

/** Helmet's options for a JSON answer: nothing may run, frame, sniff or embed it cross-origin; HSTS behind https. */
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

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * Registers @fastify/helmet and an onSend hook applying, to every answer, the
 * API set when it is JSON and the page set otherwise (untyped included). An
 * answer that chose its own content-security-policy keeps it. Call before the
 * routes are registered: route plugins' own onSend hooks (local-pay-pages.ts
 * widens form-action) run after this one and see its CSP.
 */
export async function installSecurityHeaders(app: FastifyInstance, publicUrl: string): Promise<void> {
  // Not global: the plugin's onRequest hook would apply one set before the content type is known.
  await app.register(fastifyHelmet, { global: false });
  const page = pageHelmetOptions(publicUrl);
  const api = apiHelmetOptions(publicUrl);
  const sets = {
    page,
    api,
    pageOwnCsp: { ...page, contentSecurityPolicy: false },
    apiOwnCsp: { ...api, contentSecurityPolicy: false },
  } satisfies Record<string, HelmetOptions>;
  app.addHook('onSend', (_request, reply, payload, done) => {
    const contentType = reply.getHeader('content-type');
    const isJson = typeof contentType === 'string' && JSON_TYPE.test(contentType);
    if (reply.hasHeader('content-security-policy')) reply.helmet(isJson ? sets.apiOwnCsp : sets.pageOwnCsp);
    else reply.helmet(isJson ? sets.api : sets.page);
    done(null, payload);
  });
}
