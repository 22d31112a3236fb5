// The OpenAPI 3.1 document, generated from the route schemas. Shared schemas
// keep their $id (SPEC's names) as component names. The answers every
// operation can give whatever its route (400, 401, 413/415, 500) and the
// rate-limit headers are added here, once, as shared components.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../version.js';
import type { EncodedBody } from './compression.js';
import { fixedAnswer, fixedBody, installReferenceAssets } from './fixed-answers.js';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN } from './idempotency.js';

type Security = Array<Record<string, string[]>>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document's JSON, made once (src/http/fixed-answers.ts): /openapi.json and /docs/json send it. */
    apiDocument: () => EncodedBody;
  }
}

const REFERENCE_PREFIX = '/docs';

export const COOKIE_AUTH: Security = [{ cookieAuth: [] }];
/** Public operations say so explicitly: no session is needed (one may add to the answer, as on /rankings). */
export const PUBLIC: Security = [];

const TAGS = [
  { name: 'discovery', description: 'Health and the discovery documents' },
  { name: 'accounts', description: 'Registration, sessions and account control' },
  { name: 'trading', description: 'Prices, bets, portfolio, history and rankings' },
  { name: 'social', description: 'Follows, feed, user search, profiles and statistics' },
  { name: 'record', description: 'The verifiable record of every bet' },
  { name: 'leagues', description: 'Leagues: competitions among members over a window, with rules fixed at the start' },
  { name: 'alerts', description: 'Price alerts: a notice at the first published quote at or beyond a price, or of a daily move' },
  { name: 'payments', description: 'Plans, checkout and customer portal' },
  { name: 'payments (local provider)', description: "The built-in payment provider's pages (HTML, used when no real provider is configured)" },
  { name: 'chat', description: 'Messaging-account linking and notices' },
  { name: 'email', description: 'Email address verification and change, password reset, email notice settings and unsubscribing' },
  { name: 'push', description: "Web Push: the VAPID key, and each device's subscription with the notice kinds it receives" },
];

const header = (description: string, minimum: number, maximum: number) => ({
  description,
  schema: { type: 'integer', format: 'int32', minimum, maximum },
});

/** @fastify/rate-limit's headers (sent lower-case; header names are case-insensitive) and Retry-After. */
const HEADERS = {
  'X-RateLimit-Limit': header(
    'Requests allowed per window on this operation (sent by rate-limited operations: those that declare 429)',
    1,
    10_000_000,
  ),
  'X-RateLimit-Remaining': header('Requests left in the current window', 0, 10_000_000),
  'X-RateLimit-Reset': header('Seconds until the current window ends', 0, 86_400),
  'Retry-After': header('Seconds to wait before trying again', 0, 86_400),
};

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ERROR_CONTENT = { 'application/json': { schema: schemaRef('Error') } };

interface SharedAnswer {
  name: string;
  description: string;
  headers: Record<string, unknown>;
  /** The error shapes of SPEC part 7 the answer takes (one, or either of two). */
  shapes: string[];
}

/** The error answers (SPEC part 7), one component each, keyed by status and shapes. */
const ERROR_ANSWERS: SharedAnswer[] = [
  {
    name: 'BadRequest',
    description:
      'Invalid request: a parameter that is not what the operation takes (integers are plain decimal digits), an unknown query parameter, ' +
      'a body that does not match its schema, or a request the operation refuses (see its description)',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['400', 'Error'],
  },
  {
    name: 'Unauthorized',
    description: 'Missing or invalid session (or, for /login, wrong credentials)',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['401', 'Error'],
  },
  {
    name: 'Forbidden',
    description: 'Refused: a cross-site request, or what the operation describes',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['403', 'Error'],
  },
  {
    name: 'LimitReached',
    description: 'LIMIT_REACHED at the capacity (LimitError), or a cross-site request refused (Error)',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['403', 'Error', 'LimitError'],
  },
  {
    name: 'CancelWindowClosed',
    description: 'The cancellation window has ended: close the bet instead (CancelWindowError), or a cross-site request refused (Error)',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['403', 'CancelWindowError', 'Error'],
  },
  {
    name: 'NotFound',
    description: "The user, bet, ticker or resource does not exist (or is not the caller's)",
    headers: RATE_LIMIT_HEADERS,
    shapes: ['404', 'Error'],
  },
  { name: 'Conflict', description: 'Conflicts with what exists (see the operation)', headers: RATE_LIMIT_HEADERS, shapes: ['409', 'Error'] },
  { name: 'PayloadTooLarge', description: 'The body is over the size limit', headers: RATE_LIMIT_HEADERS, shapes: ['413', 'Error'] },
  { name: 'UnsupportedMediaType', description: 'The body is not sent as application/json', headers: RATE_LIMIT_HEADERS, shapes: ['415', 'Error'] },
  {
    name: 'TooManyRequests',
    description: 'Too many requests: wait Retry-After seconds',
    headers: { 'Retry-After': headerRef('Retry-After'), ...RATE_LIMIT_HEADERS },
    shapes: ['429', 'Error'],
  },
  { name: 'InternalError', description: 'Internal error (never a stack trace)', headers: {}, shapes: ['500', 'Error'] },
  {
    name: 'ServiceUnavailable',
    description: 'A dependency is down or the service is saturated: retry after Retry-After seconds',
    headers: { 'Retry-After': headerRef('Retry-After') },
    shapes: ['503', 'Error'],
  },
];

const SHARED_BY_KEY = new Map(ERROR_ANSWERS.map((a) => [a.shapes.join(' '), a]));

// The answers of a repeated Idempotency-Key (src/http/idempotency.ts), given
// to operations marked idempotent, never matched to a route's own declaration.
const IDEMPOTENCY_ANSWERS: SharedAnswer[] = [
  {
    name: 'IdempotencyKeyInProgress',
    description: 'A request with this Idempotency-Key is in progress: retry after Retry-After seconds for its answer',
    headers: { 'Retry-After': headerRef('Retry-After'), ...RATE_LIMIT_HEADERS },
    shapes: ['409', 'Error'],
  },
  {
    name: 'ConflictOrIdempotencyKeyInProgress',
    description:
      'Conflicts with what exists (see the operation), or, with the error text "A request with this Idempotency-Key is in progress", ' +
      'a request with this Idempotency-Key is still running: retry after Retry-After seconds',
    headers: { 'Retry-After': headerRef('Retry-After'), ...RATE_LIMIT_HEADERS },
    shapes: ['409', 'Error'],
  },
  {
    name: 'IdempotencyKeyReused',
    description: 'This Idempotency-Key was already used, within 24 hours, with another request (method, path or body)',
    headers: RATE_LIMIT_HEADERS,
    shapes: ['422', 'Error'],
  },
];

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the write safe to repeat: the same key with the same method, path and body, from the same user within 24 hours, ' +
    'answers as the first time did (2xx or 4xx) without doing the work again; while the first is still running, 409 with ' +
    'Retry-After; with another request, 422. A 5xx frees the key. Use a fresh random value (a UUID) per user action.',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** Marks, in the route schema, an operation that takes Idempotency-Key (removed when the document is completed). */
const IDEMPOTENT_MARK = 'x-idempotent';

function sharedAnswerContent(a: SharedAnswer) {
  const [, ...shapes] = a.shapes;
  const schema = shapes.length === 1 ? schemaRef(shapes[0] as string) : { anyOf: shapes.map(schemaRef) };
  return { 'application/json': { schema } };
}

interface Schema {
  $ref?: string;
  anyOf?: Schema[];
}

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: Schema }>;
}

interface Operation {
  operationId?: string;
  security?: Security;
  parameters?: Array<{ $ref?: string; required?: boolean; schema?: { default?: unknown } }>;
  [IDEMPOTENT_MARK]?: boolean;
  responses: Record<string, Response>;
}

interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

const UNSAFE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** The shared answer a route's own declaration is, when it is one: a JSON body of error shapes only, no headers of its own. */
function sharedAnswerOf(status: string, r: Response): SharedAnswer | undefined {
  if (r.$ref || r.headers || r.content === undefined || Object.keys(r.content).join() !== 'application/json') return undefined;
  const schema = r.content['application/json']?.schema;
  const refs = schema?.anyOf ?? (schema ? [schema] : []);
  const names = refs.map((x) => x.$ref?.replace('#/components/schemas/', ''));
  if (names.length === 0 || names.some((n) => n === undefined)) return undefined;
  return SHARED_BY_KEY.get([status, ...(names as string[]).sort()].join(' '));
}

/** What the operation can answer besides what its route declares, its shared answers by reference, its rate-limit headers. */
function completeOperation(method: string, op: Operation): Operation {
  const responses: Record<string, Response> = { ...op.responses };
  const answer = (status: number) => {
    responses[status] ??= { content: ERROR_CONTENT };
  };
  // Pages answer their errors as HTML pages and declare each themselves.
  const page = Object.values(responses).some((r) => r.content?.['text/html']);
  if (!page) {
    // Every route validates its parameters and refuses unknown query parameters (src/http/validation.ts).
    answer(400);
    if (op.security?.some((s) => 'cookieAuth' in s)) answer(401);
    // Writes refuse cross-site requests (src/http/cross-site.ts), and a body may come
    // with any of them, which the parser refuses when too large or not JSON.
    if (UNSAFE_METHODS.has(method)) {
      answer(403);
      answer(413);
      answer(415);
    }
    answer(500);
  }
  const limited = '429' in responses;
  for (const [status, r] of Object.entries(responses)) {
    const shared = sharedAnswerOf(status, r);
    if (shared) responses[status] = { $ref: `#/components/responses/${shared.name}` };
    else if (limited && /^[24]/.test(status)) {
      const retry = status === '429' ? { 'Retry-After': headerRef('Retry-After') } : {};
      responses[status] = { ...r, headers: { ...retry, ...RATE_LIMIT_HEADERS, ...r.headers } };
    }
  }
  const { [IDEMPOTENT_MARK]: idempotent, ...rest } = op;
  if (idempotent) {
    // On checkout SPEC's 409 (already subscribed) and the key's are told apart by their error text.
    responses['409'] = { $ref: `#/components/responses/${'409' in responses ? 'ConflictOrIdempotencyKeyInProgress' : 'IdempotencyKeyInProgress'}` };
    responses['422'] = { $ref: '#/components/responses/IdempotencyKeyReused' };
  }
  const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  // A parameter with a default is optional by definition (TypeBox lists it as required).
  const parameters = op.parameters?.map((p) => (typeof p.schema === 'object' && 'default' in p.schema ? { ...p, required: false } : p));
  const allParameters = idempotent ? [...(parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }] : parameters;
  return { ...rest, ...(allParameters ? { parameters: allParameters } : {}), responses: ordered };
}

function completeDocument(doc: Document): Document {
  doc.components.headers = HEADERS;
  doc.components.parameters = { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER };
  doc.components.responses = Object.fromEntries(
    [...ERROR_ANSWERS, ...IDEMPOTENCY_ANSWERS].map((a) => [
      a.name,
      { description: a.description, ...(Object.keys(a.headers).length ? { headers: a.headers } : {}), content: sharedAnswerContent(a) },
    ]),
  );
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      // GET and HEAD of one route share an object: each gets its own, and HEAD its own operationId.
      const own = completeOperation(method, op);
      if (method === 'head' && own.operationId) own.operationId = `head${own.operationId.replace(/^get/, '')}`;
      item[method] = own;
    }
  }
  return doc;
}

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  const { publicUrl } = app.ctx.config;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paper-trading bets API',
        version: API_VERSION,
        description:
          'Social paper trading: open LONG or SHORT bets on tickers at server-set prices, close or cancel them, ' +
          'climb the leaderboard, follow traders. No real money moves. Automated clients: read /llms.txt first.',
      },
      // x-internal: false says the server is for the public (OWASP API9: inventory).
      servers: [
        { url: publicUrl, description: 'This deployment (PUBLIC_URL; the local default is http://localhost:3000)', 'x-internal': false } as never,
      ],
      tags: TAGS,
      components: {
        securitySchemes: {
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'auth_token', description: 'Session cookie set by POST /login' },
        },
      },
    },
    // Routes marked `config: { idempotent: true }` take the Idempotency-Key parameter and its answers.
    transform: ({ schema, url, route }) =>
      route.config?.idempotent === true && schema ? { schema: { ...schema, [IDEMPOTENT_MARK]: true } as typeof schema, url } : { schema, url },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Document }).openapiObject;
      return completeDocument(doc) as never;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String((json as { $id?: string }).$id ?? `def-${i}`),
    },
  });
  // Made on first use: by then every route is registered and the document complete.
  app.decorate(
    'apiDocument',
    fixedBody(() => JSON.stringify(app.swagger())),
  );
  const sendReferenceDocument = fixedAnswer('application/json; charset=utf-8', () => app.apiDocument());
  await app.register(swaggerUi, {
    routePrefix: REFERENCE_PREFIX,
    uiConfig: { withCredentials: true },
    staticCSP: false,
    uiHooks: {
      // The plugin would serialize the document for every request.
      onRequest: async (request, reply) => {
        if (request.routeOptions.url === `${REFERENCE_PREFIX}/json`) return sendReferenceDocument(request, reply);
      },
    },
  });
  installReferenceAssets(app, REFERENCE_PREFIX);
}
