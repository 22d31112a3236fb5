// Hot answers that are the same for every caller, served straight from the
// HTTP server's request event, before Fastify routes the request. A route
// offers an answer it serves from a cache (GET /, the leaderboard, a price); the offer remembers the exact URL, the
// answer's headers as the routed request sent them, and how to read the
// cache. The next GET of that exact URL is answered with the cached bytes and
// the same headers, for as long as the cache holds the answer: the cache's own
// expiry and invalidation decide freshness, so nothing is served that the
// routed request would not have served.
//
// Only what routing would add nothing to is served here: GET without a body,
// on a route without rate limit, while no per-request log line is wanted and
// the server is not closing. A route that needs a session offers only an
// answer that is the same for every caller (a price), and it is served here
// only to a caller whose session is already known live in memory (the
// router's own check, without its I/O); any other caller, with a session not
// yet known, an expired one or none, is routed and gets the router's answer
// (401 included). Anything else, and any URL not offered, goes to Fastify
// unchanged. Each answer is counted in the request metrics under its route,
// and carries its own request id, like a routed one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BoundedMap } from '../lib/bounded-map.js';
import type { RequestMetrics } from '../lib/request-metrics.js';
import type { ClosingState } from './graceful-close.js';
import { requestIdOf } from './observability.js';

/** Reads the cached answer's bytes, or undefined when the cache no longer holds a fresh one. */
export type PeekAnswer = () => Buffer | undefined;

export interface OfferOptions {
  /**
   * The route needs a session, but its answer is the same whoever asks: it may
   * be served here to callers whose session is known live. Without it, a
   * session route's answer is the caller's own and is never offered.
   */
  sameForEverySession?: boolean;
}

interface Offer {
  route: string;
  peek: PeekAnswer;
  /** Served only to a caller whose session is known live. */
  session: boolean;
  /** Name, value, name, value: the routed answer's headers but those written per answer. */
  headers: string[];
}

interface PendingOffer {
  url: string;
  route: string;
  peek: PeekAnswer;
  session: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Hot cached answers served before routing. */
    front: FrontAnswers;
  }
  interface FastifyReply {
    /** Set by FrontAnswers.offer(); kept once the answer went out as a plain 200. */
    frontOffer: PendingOffer | null;
  }
}

/** Headers that differ per answer or that Node writes itself: never replayed. */
const PER_ANSWER = new Set(['content-length', 'x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** pino's number for the info level. */
const PINO_INFO = 30;

/** Distinct URLs remembered (the query string is part of the URL): the oldest offer is dropped past it. */
const MAX_URLS = 1_000;

export interface FrontAnswersWiring {
  metrics: RequestMetrics;
  closing: ClosingState;
  log: FastifyBaseLogger;
  /** Whether the request's session is known live, from memory alone (false: the router decides). */
  sessionKnown: (req: IncomingMessage) => boolean;
}

export class FrontAnswers {
  private readonly offers = new BoundedMap<string, Offer>(MAX_URLS);
  private wiring: FrontAnswersWiring | null = null;

  /**
   * A route answering request from a cache offers that answer for the
   * request's exact URL; peek reads the cache without loading. Call it before
   * sending: the offer is kept only if the answer goes out as a 200 without
   * cookies, with the headers it went out with.
   */
  offer(request: FastifyRequest, reply: FastifyReply, peek: PeekAnswer, options: OfferOptions = {}): void {
    const config = request.routeOptions.config;
    const session = config.auth === true;
    // A session's answer is the caller's own unless the route says otherwise, and a rate limit must count every request.
    if (session && options.sameForEverySession !== true) return;
    if (request.method !== 'GET' || config.rateLimit !== undefined || !this.answering()) return;
    const url = request.raw.url;
    const route = request.routeOptions.url;
    if (url !== undefined && route !== undefined) reply.frontOffer = { url, route, peek, session };
  }

  /** The request listener's first step: true when the request was answered here. Never throws. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const wiring = this.wiring;
    if (req.method !== 'GET' || wiring === null || !this.answering()) return false;
    const url = req.url ?? '';
    const offer = this.offers.get(url);
    if (offer === undefined) return false;
    try {
      if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
      if (offer.session && !wiring.sessionKnown(req)) return false;
      const body = offer.peek();
      if (body === undefined) return false;
      const started = performance.now();
      res.writeHead(200, [...offer.headers, 'x-request-id', requestIdOf(req), 'content-length', String(body.length)]);
      res.end(body);
      wiring.metrics.record('GET', offer.route, 200, (performance.now() - started) / 1000);
      return true;
    } catch (err) {
      // The offer is not tried again; a request nothing was sent for goes to the router.
      wiring.log.error({ err, route: offer.route }, 'front answer failed');
      this.offers.delete(url);
      if (!res.headersSent) return false;
      res.destroy();
      return true;
    }
  }

  /**
   * Whether anything is answered here now: not while the server closes (Fastify tells clients to
   * close), nor while Fastify logs every routed request at info (pino's levelVal; none when off).
   */
  private answering(): boolean {
    const wiring = this.wiring;
    if (wiring === null || wiring.closing.closing) return false;
    return ((wiring.log as { levelVal?: number }).levelVal ?? Infinity) > PINO_INFO;
  }

  /** How many URLs have an offer (tests, diagnostics). */
  get size(): number {
    return this.offers.size;
  }

  install(app: FastifyInstance, wiring: FrontAnswersWiring): void {
    const front: FrontAnswers = this;
    app.decorate('front', front);
    app.decorateReply('frontOffer', null);
    // onResponse: the answer's headers are final and it went out whole.
    app.addHook('onResponse', (_request, reply, done) => {
      const pending = reply.frontOffer;
      if (pending !== null && reply.statusCode === 200 && !reply.hasHeader('set-cookie')) {
        const { route, peek, session } = pending;
        this.offers.set(pending.url, { route, peek, session, headers: headerList(reply.getHeaders()) });
      }
      done();
    });
    this.wiring = wiring;
  }
}

function headerList(headers: Record<string, string | number | string[] | undefined>): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || PER_ANSWER.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) list.push(name, v);
    else list.push(name, String(value));
  }
  return list;
}
