// Security headers. Pages (the web app, the API docs, the few server-rendered
// pages) get helmet's full set: CSP, HSTS, framing, referrer and the rest.
// JSON answers get the short set OWASP's REST cheat sheet asks of an API: a
// browser never renders them, so a page's policy would only add bytes to every
// answer. Both sets are computed once at start.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** Helmet's headers for HTML pages (and anything that is not JSON: assets, downloads). */
export function pageSecurityHeaders(publicUrl: string): Record<string, string> {
  const https = publicUrl.startsWith('https:');
  const middleware = helmet({
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
  });
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown = null;
  middleware({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    failure = err ?? null;
  });
  if (failure) throw failure;
  return headers;
}

/** The headers of a JSON answer: nothing may run, frame, sniff or embed it cross-origin; HSTS behind https. */
export function apiSecurityHeaders(publicUrl: string): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-resource-policy': 'same-origin',
    ...(publicUrl.startsWith('https:') ? { 'strict-transport-security': pageSecurityHeaders(publicUrl)['strict-transport-security'] } : {}),
  };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

const withoutCsp = (headers: Record<string, string>) => {
  const { 'content-security-policy': _csp, ...rest } = headers;
  return rest;
};

/**
 * Picks the set for an answer by its content type: JSON gets the API set,
 * anything else (or untyped) the page set. An answer that chose its own
 * content-security-policy keeps it.
 */
export function securityHeadersFor(publicUrl: string): (contentType: unknown, hasOwnCsp: boolean) => Record<string, string> {
  const page = pageSecurityHeaders(publicUrl);
  const api = apiSecurityHeaders(publicUrl);
  const sets = { page, api, pageOwnCsp: withoutCsp(page), apiOwnCsp: withoutCsp(api) };
  return (contentType, hasOwnCsp) => {
    const isJson = typeof contentType === 'string' && JSON_TYPE.test(contentType);
    if (hasOwnCsp) return isJson ? sets.apiOwnCsp : sets.pageOwnCsp;
    return isJson ? sets.api : sets.page;
  };
}
