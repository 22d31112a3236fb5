// The OpenAPI document is the contract: valid OpenAPI 3.1, and everything
// SPEC.md lists is there with its shape (the document may add more).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import build from 'fast-json-stringify';
import { testConfig } from '../../src/config.js';
import { sharedSchemas } from '../../src/schemas/index.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { SPEC_ENDPOINTS, SPEC_SHAPES, type SpecField } from './spec.js';

// The parts of the document these tests read.
interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}

/** A response, or a reference to a shared one under components.responses. */
interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref?: string }>;
  content: Record<string, { schema: Schema }>;
}

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, Response>;
}

// A type, not an interface, so that it is the plain record the validator takes.
type OpenApiDocument = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, Record<string, unknown>>;
    responses: Record<string, Response>;
    headers: Record<string, { schema: Schema }>;
    parameters?: Record<string, Parameter>;
  };
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  before(async () => {
    t = await createTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/openapi\+json/);
    doc = JSON.parse(res.body);
  });
  after(() => t.close());

  const deref = (schema: Schema): Schema => {
    if (schema?.$ref) {
      const name = String(schema.$ref).replace('#/components/schemas/', '');
      const target = doc.components.schemas[name];
      assert.ok(target, `dangling $ref ${schema.$ref}`);
      return target;
    }
    return schema;
  };
  const refName = (schema: Schema | undefined): string | null => (schema?.$ref ? String(schema.$ref).replace('#/components/schemas/', '') : null);
  /** The operation's answer for a status, a shared one followed to its component. */
  const answer = (op: Operation, status: number | string): Response | undefined => {
    const r = op.responses[String(status)];
    if (!r?.$ref) return r;
    const shared = doc.components.responses[r.$ref.replace('#/components/responses/', '')];
    assert.ok(shared, `unresolvable ${r.$ref}`);
    return shared;
  };
  /** The operation's parameters, shared ones followed to their component. */
  const parametersOf = (op: Operation): Parameter[] =>
    (op.parameters ?? []).map((p) => {
      if (!p.$ref) return p;
      const shared = doc.components.parameters?.[p.$ref.replace('#/components/parameters/', '')];
      assert.ok(shared, `unresolvable ${p.$ref}`);
      return shared;
    });
  const operations = (): Array<[string, Operation]> =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
    );

  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
  });

  // The server compiles validators and serializers on first use and does not check the schemas at
  // each start (src/http/validation.ts, src/http/serialization.ts): a schema either would refuse fails here.
  test('every schema is a valid JSON Schema (draft-07, as Ajv and fast-json-stringify read them)', () => {
    const ajv = new Ajv({ strict: false });
    const check = (label: string, schema: unknown) => assert.ok(ajv.validateSchema(schema as object), `${label}: ${ajv.errorsText()}`);
    for (const schema of sharedSchemas) check(String(schema.$id), schema);
    for (const [name, schema] of Object.entries(doc.components.schemas)) check(`components.schemas.${name}`, schema);
    for (const [label, op] of operations()) {
      for (const p of parametersOf(op)) check(`${label} parameter ${p.name}`, p.schema);
      for (const [type, c] of Object.entries(op.requestBody?.content ?? {})) check(`${label} body ${type}`, c.schema);
      for (const status of Object.keys(op.responses)) {
        for (const [type, c] of Object.entries(answer(op, status)?.content ?? {})) check(`${label} ${status} ${type}`, c.schema);
      }
    }
  });

  test('fast-json-stringify builds a serializer for every shared schema', () => {
    const byId = Object.fromEntries(sharedSchemas.map((s) => [String(s.$id), s]));
    // One build that refers to them all resolves each, as the routes' serializers do.
    const all = { type: 'object', properties: Object.fromEntries(Object.keys(byId).map((id) => [id, { $ref: id }])) };
    assert.equal(typeof build(all as never, { schema: byId as never }), 'function');
  });

  test('declares the auth_token cookie security scheme', () => {
    assert.deepEqual(
      { ...doc.components.securitySchemes.cookieAuth, description: undefined },
      { type: 'apiKey', in: 'cookie', name: 'auth_token', description: undefined },
    );
  });

  test('every SPEC operation is there, with its auth, request, statuses and shapes', () => {
    for (const ep of SPEC_ENDPOINTS) {
      const label = `${ep.method.toUpperCase()} ${ep.path}`;
      const op = doc.paths[ep.path]?.[ep.method];
      assert.ok(op, `${label} missing`);
      const secured = (op.security ?? []).some((s) => 'cookieAuth' in s);
      assert.equal(secured, ep.auth, `${label} security`);
      if (ep.auth) assert.ok(op.responses['401'], `${label} must declare 401`);

      const [code, shape] = ep.success;
      const ok = answer(op, code);
      assert.ok(ok, `${label} ${code} missing`);
      if (shape) {
        const schema = ok.content['application/json'].schema;
        if (shape.endsWith('[]')) {
          assert.equal(schema.type, 'array', `${label} returns an array`);
          const item = shape.slice(0, -2);
          if (item === 'integer') assert.equal(schema.items?.type, 'integer');
          else assert.equal(refName(schema.items), item, `${label} items`);
        } else assert.equal(refName(schema), shape, `${label} ${code} shape`);
      }

      for (const [status, errShape] of ep.errors) {
        const r = answer(op, status);
        assert.ok(r, `${label} must declare ${status}`);
        const schema = r.content['application/json'].schema;
        const names = schema.anyOf ? schema.anyOf.map(refName) : [refName(schema)];
        assert.ok(names.includes(errShape), `${label} ${status} is ${errShape} (got ${names})`);
      }

      if (ep.request) {
        assert.equal(refName(op.requestBody?.content?.['application/json']?.schema), ep.request, `${label} request body`);
      }
      for (const q of ep.query ?? []) {
        const p = (op.parameters ?? []).find((x) => x.in === 'query' && x.name === q);
        assert.ok(p, `${label} query ${q}`);
        assert.equal(p.required, false, `${label} query ${q} is optional`);
      }
    }
  });

  test('paging parameters carry SPEC bounds and defaults', () => {
    for (const path of ['/history', '/user/{user_id}/public']) {
      const params = doc.paths[path].get.parameters ?? [];
      const limit = params.find((p) => p.name === 'limit')!.schema;
      const offset = params.find((p) => p.name === 'offset')!.schema;
      assert.deepEqual([limit.type, limit.minimum, limit.maximum, limit.default], ['integer', 1, 500, 100]);
      assert.deepEqual([offset.type, offset.minimum, offset.maximum, offset.default], ['integer', 0, 10000, 0]);
    }
  });

  test('every SPEC shape is a component under its SPEC name with the same fields', () => {
    const typeOf = (s: Schema): { types: string[]; nullable: boolean } => {
      const variants: Schema[] = s.anyOf ? s.anyOf.map(deref) : [deref(s)];
      const types = variants.map((v) => (v.enum || v.const ? (v.type ?? 'string') : v.type)).filter((t) => t !== undefined);
      return { types: types.filter((x) => x !== 'null'), nullable: types.includes('null') };
    };
    for (const [name, shape] of Object.entries(SPEC_SHAPES)) {
      const schema = doc.components.schemas[name];
      assert.ok(schema, `component ${name} missing`);
      if (shape.closed === true || shape.closed === null) assert.equal(schema.additionalProperties, false, `${name} is closed`);
      else assert.notEqual(schema.additionalProperties, false, `${name} allows additional properties`);
      for (const [field, spec] of Object.entries(shape.fields) as Array<[string, SpecField]>) {
        const prop = schema.properties?.[field];
        assert.ok(prop, `${name}.${field} missing`);
        if (spec.required) assert.ok(schema.required?.includes(field), `${name}.${field} required`);
        const { types, nullable } = typeOf(prop);
        assert.deepEqual(types, [spec.type], `${name}.${field} type`);
        assert.equal(nullable, spec.nullable ?? false, `${name}.${field} nullability`);
        const variants: Schema[] = prop.anyOf ?? [prop];
        const main = deref(variants.find((v) => v.type !== 'null') ?? prop);
        if (spec.format) assert.equal(main.format, spec.format, `${name}.${field} format`);
        if (spec.enum) {
          const values = main.enum ?? (main.anyOf ?? []).map((v) => v.const ?? v.enum?.[0]);
          assert.deepEqual([...values].sort(), [...spec.enum].sort(), `${name}.${field} values`);
        }
        if (spec.ref) {
          const target = spec.type === 'array' ? refName(prop.items) : refName(prop);
          assert.equal(target, spec.ref, `${name}.${field} refers to ${spec.ref}`);
        }
      }
    }
  });

  test('every operation is built: none declares 501', () => {
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) assert.ok(!op.responses?.['501'], `${method} ${path} declares 501`);
  });

  test('provider notification endpoints are not in the document', () => {
    assert.equal(doc.paths['/api/pay/webhook'], undefined);
    assert.equal(doc.paths['/chat/webhook'], undefined);
  });

  test('component names are SPEC names, never def-N', () => {
    for (const name of Object.keys(doc.components.schemas)) assert.doesNotMatch(name, /^def-\d+$/);
  });

  // Clients generate code from these names: renaming one breaks them.
  const OPERATION_IDS: Record<string, string> = {
    'GET /': 'getHealth',
    'GET /.well-known/api-catalog': 'getApiCatalog',
    'HEAD /.well-known/api-catalog': 'headApiCatalog',
    'GET /.well-known/oauth-protected-resource': 'getProtectedResourceMetadata',
    'GET /openapi.json': 'getOpenApiDocument',
    'GET /llms.txt': 'getLlmsTxt',
    'POST /register': 'register',
    'POST /login': 'login',
    'POST /logout': 'logout',
    'GET /me': 'getMe',
    'POST /me/password': 'changePassword',
    'DELETE /me': 'deleteAccount',
    'GET /me/export': 'exportBets',
    'GET /price/{ticker}': 'getPrice',
    'GET /price/{ticker}/history': 'getPriceHistory',
    'GET /bet/{bet_id}': 'getBet',
    'POST /bet/open': 'openBet',
    'POST /bet/close': 'closeBet',
    'DELETE /bet/{bet_id}': 'cancelBet',
    'POST /bet/{bet_id}/tail': 'tailBet',
    'POST /bet/{bet_id}/fade': 'fadeBet',
    'GET /portfolio': 'getPortfolio',
    'GET /history': 'getHistory',
    'GET /leaderboard': 'getLeaderboard',
    'GET /leaderboard/ranked': 'getRankedLeaderboard',
    'GET /rankings': 'getRankings',
    'GET /instruments/{symbol}/consensus': 'getInstrumentConsensus',
    'POST /follow': 'changeFollow',
    'GET /following': 'getFollowing',
    'GET /feed': 'getFeed',
    'GET /users/search': 'searchUsers',
    'GET /user/{user_id}/public': 'getPublicProfile',
    'GET /user/{user_id}/stats': 'getTraderStats',
    'GET /record/head': 'getRecordHead',
    'GET /record/days/{date}': 'getRecordDay',
    'GET /record/user/{user_id}': 'getUserRecord',
    'GET /api/pay/plans': 'getPlans',
    'POST /api/pay/checkout': 'startCheckout',
    'POST /api/pay/portal': 'openPortal',
    'GET /pay/local/checkout/{id}': 'getLocalCheckoutPage',
    'POST /pay/local/checkout/{id}/confirm': 'confirmLocalCheckout',
    'GET /pay/local/portal': 'getLocalPortalPage',
    'POST /pay/local/portal/cancel': 'cancelLocalSubscription',
    'GET /chat/status': 'getChatStatus',
    'POST /chat/link-code': 'createChatLinkCode',
    'POST /chat/unlink': 'unlinkChat',
    'GET /chat/local/link/{code}': 'getLocalChatLinkPage',
    'GET /notifications': 'getNotifications',
  };

  test('every operation has a unique, stable operationId and declares its security (public ones [])', () => {
    const seen = new Map<string, string>();
    for (const [label, op] of operations()) {
      const id = op.operationId;
      assert.ok(id, `${label} has no operationId`);
      if (label in OPERATION_IDS) assert.equal(id, OPERATION_IDS[label], `${label} operationId`);
      assert.ok(!seen.has(id), `${label} and ${seen.get(id)} share the operationId ${id}`);
      seen.set(id, label);
      assert.ok(Array.isArray(op.security), `${label} declares security`);
    }
    for (const label of Object.keys(OPERATION_IDS)) assert.ok(seen.has(OPERATION_IDS[label]), `${label} is in the document`);
  });

  test('the answers every operation can give are declared, shared answers by reference', () => {
    for (const [label, op] of operations()) {
      const method = label.split(' ')[0];
      const page = Object.values(op.responses).some((r) => r.content?.['text/html']);
      const required = page ? [] : [400, 500];
      if (!page && (op.security ?? []).some((s) => 'cookieAuth' in s)) required.push(401);
      if (!page && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) required.push(403, 413, 415);
      for (const status of required) assert.ok(op.responses[status], `${label} declares ${status}`);
      for (const [status, r] of Object.entries(op.responses)) {
        const json = r.content?.['application/json']?.schema;
        const copiesError = !r.$ref && Object.keys(r.content ?? {}).length === 1 && refName(json) === 'Error';
        assert.ok(!copiesError, `${label} ${status}: a plain Error answer refers to components.responses`);
      }
    }
  });

  test('rate-limited operations declare Retry-After on 429 and the rate-limit headers on their answers', () => {
    const headerRef = (name: string) => `#/components/headers/${name}`;
    assert.deepEqual(Object.keys(doc.components.headers).sort(), ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    for (const [label, op] of operations()) {
      if (!op.responses['429']) continue;
      for (const status of Object.keys(op.responses).filter((s) => /^[24]/.test(s))) {
        const headers = answer(op, status)?.headers ?? {};
        assert.equal(headers['X-RateLimit-Limit']?.$ref, headerRef('X-RateLimit-Limit'), `${label} ${status} declares X-RateLimit-Limit`);
        if (status === '429') assert.equal(headers['Retry-After']?.$ref, headerRef('Retry-After'), `${label} 429 declares Retry-After`);
      }
    }
    for (const name of ['TooManyRequests', 'ServiceUnavailable'])
      assert.equal(doc.components.responses[name].headers?.['Retry-After']?.$ref, headerRef('Retry-After'), `${name} declares Retry-After`);
  });

  test('integer parameters are bounded integers with a format; string ones have a maximum length', () => {
    for (const [label, op] of operations())
      for (const p of parametersOf(op)) {
        const s = deref(p.schema) as Schema & { maxLength?: number };
        if (s.type === 'integer') {
          assert.match(String(s.format), /^int(32|64)$/, `${label} ${p.name} format`);
          assert.ok(typeof s.minimum === 'number' && typeof s.maximum === 'number', `${label} ${p.name} bounds`);
          assert.ok((s.maximum as number) <= Number.MAX_SAFE_INTEGER, `${label} ${p.name} within the safe integers`);
        } else if (s.type === 'string' && !s.enum) assert.ok(typeof s.maxLength === 'number', `${label} ${p.name} maxLength`);
      }
  });

  test('the writes DESIGN lists take the Idempotency-Key header (one shared parameter) and declare its 409 and 422', () => {
    const writes = [
      'POST /bet/open',
      'POST /bet/close',
      'DELETE /bet/{bet_id}',
      'PUT /bet/{bet_id}/exits',
      'POST /follow',
      'POST /bet/{bet_id}/tail',
      'POST /bet/{bet_id}/fade',
      'POST /api/pay/checkout',
      'POST /chat/link-code',
      // DESIGN's price alerts, writes like the others.
      'POST /alerts',
      'DELETE /alerts/{alert_id}',
    ];
    const shared = doc.components.parameters?.IdempotencyKey;
    assert.ok(shared, 'components.parameters.IdempotencyKey');
    assert.equal(shared.name, 'Idempotency-Key');
    assert.equal(shared.in, 'header');
    assert.notEqual(shared.required, true);
    for (const [label, op] of operations()) {
      const takes = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
      assert.equal(takes, writes.includes(label), `${label} ${takes ? 'takes' : 'does not take'} Idempotency-Key`);
      if (!takes) continue;
      const inProgress = answer(op, 409);
      assert.equal(inProgress?.headers?.['Retry-After']?.$ref, '#/components/headers/Retry-After', `${label} 409 declares Retry-After`);
      assert.equal(refName(inProgress?.content['application/json']?.schema), 'Error', `${label} 409 is an Error`);
      assert.equal(refName(answer(op, 422)?.content['application/json']?.schema), 'Error', `${label} 422 is an Error`);
    }
    // SPEC's 409 on checkout (already subscribed) stays described.
    assert.match(String(answer(doc.paths['/api/pay/checkout'].post, 409)?.description), /Conflicts with what exists/);
  });

  test('/llms.txt fits the length the document declares', async () => {
    const declared = doc.paths['/llms.txt'].get.responses['200'].content['text/plain'].schema as Schema & { maxLength: number };
    const res = await t.app.inject({ method: 'GET', url: '/llms.txt' });
    assert.ok(res.body.length <= declared.maxLength, `${res.body.length} > ${declared.maxLength}`);
  });
});

describe('OpenAPI document and rate limits', () => {
  // With limits on, an operation's answers carry @fastify/rate-limit's headers
  // exactly when the document declares its 429: the builders of
  // src/http/route-options.ts derive both from one `limit`, and this checks it
  // for every route, those declared without a builder too.
  test('an operation sends the rate-limit headers if and only if it declares 429', async () => {
    const limits = { ...testConfig().rateLimits, enabled: true, authPerMinute: 1000, publicPerMinute: 1000, writesPerMinute: 1000 };
    const t = await createTestApp('sqlite', { config: { rateLimits: limits } });
    try {
      const u = await registerAndLogin(t.app, 'limits');
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument;
      const mismatches: string[] = [];
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, op] of Object.entries(item)) {
          // A missing object (no bet 999999999) or an empty body: refused without changing anything.
          const url = path
            .replace(/\{(bet_id|user_id)\}/, '999999999')
            .replace('{ticker}', 'AAPL')
            .replace('{date}', '2026-01-01')
            .replace(/\{(id|code)\}/, 'nothing');
          // /logout is public: without the cookie the session stays.
          const cookie = (op.security ?? []).length > 0 ? { cookie: u.cookie } : {};
          const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url, headers: cookie });
          const sent = res.headers['x-ratelimit-limit'] !== undefined;
          const declared = '429' in op.responses;
          if (sent !== declared)
            mismatches.push(
              `${method.toUpperCase()} ${path}: headers ${sent ? 'sent' : 'not sent'} (${res.statusCode}), 429 ${declared ? '' : 'not '}declared`,
            );
        }
      assert.deepEqual(mismatches, []);
    } finally {
      await t.close();
    }
  });
});
