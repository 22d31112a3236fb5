// Property-based fuzzing from the service's own OpenAPI document: for every
// operation, valid and hostile requests, with and without a session, and the
// invariants every answer must keep (see checkResponse).
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Dialect } from '../../src/db/database.js';
import { cookieFrom, createTestApp, registerAndLogin } from './app.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | null;
  responses: Record<string, Response>;
  secured: boolean;
}

/** A response, or a reference to a shared one (components.responses). */
interface Response {
  $ref?: string;
  content?: Record<string, { schema?: Schema }>;
}

export interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema: Schema }> };
        responses: Operation['responses'];
        security?: unknown[];
      }
    >
  >;
  components: { schemas: Record<string, Schema>; responses?: Record<string, Response> };
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      // HEAD mirrors GET and the document itself is huge: both are covered elsewhere.
      if (method === 'head' || path === '/openapi.json') continue;
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        responses: op.responses,
        secured: (op.security ?? []).length > 0,
      });
    }
  return out;
}

// ---------------------------------------------------------------- values

/** Strings that look like attacks or break naive code; none contains text the leak check looks for. */
const HOSTILE_STRINGS = [
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '1; select pg_sleep(5)',
  '" OR ""="',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  '/dev/null',
  'a\u0000b',
  '\u0000',
  '\uFEFF\u202E\u200B',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🦄 ܐ 中文 ﷽',
  '\uD800',
  '<script>alert(1)</script>',
  // Template injection: the dollar-brace is meant literally, not a placeholder.
  '$' + '{7*7}{{7*7}}',
  '__proto__',
  'constructor',
  '',
  ' ',
  'null',
  'true',
  '-1',
  '1e309',
  'NaN',
  'x'.repeat(5000),
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, -0, 1.5, 2 ** 31, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Nested arrays or objects deep enough to trip naive recursion. */
const deepJson = fc.tuple(fc.integer({ min: 50, max: 1000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

const anyHostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, [], {}, [1, 'a'], { nested: { x: 1 } }),
  deepJson,
);

function deref(schema: Schema, doc: OpenApiDoc): Schema {
  let s = schema;
  while (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unresolvable ${s.$ref}`);
    s = target;
  }
  return s;
}

const WORD_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ -.'];

function dateString(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));
}

/** Values that satisfy schema (as far as a generator can: the server's own rules may still refuse them). */
export function valid(schema: Schema, doc: OpenApiDoc, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema, doc);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return fc.oneof(...alts.map((a) => valid(a, doc, depth + 1)));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => valid({ ...s, type }, doc, depth + 1)));
  switch (s.type) {
    case 'string': {
      const minLength = (s.minLength as number | undefined) ?? 0;
      const maxLength = Math.min((s.maxLength as number | undefined) ?? 40, 60);
      if (s.format === 'date') return dateString();
      if (s.format === 'email') return fc.emailAddress();
      if (s.format === 'uri') return fc.webUrl();
      if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      // No .filter() on lengths: a rarely met filter makes generation spin.
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern as string));
      const hi = Math.max(maxLength, minLength);
      return fc.oneof(fc.string({ minLength, maxLength: hi }), fc.string({ unit: fc.constantFrom(...WORD_CHARS), minLength, maxLength: hi }));
    }
    case 'integer': {
      // fc.integer takes 32-bit bounds; ids are declared up to 2^53 − 1.
      const min = Math.max((s.minimum as number | undefined) ?? -1_000_000, -(2 ** 31));
      const max = Math.min((s.maximum as number | undefined) ?? 1_000_000, 2 ** 31 - 1);
      // Small positive ids hit real rows more often than random ones.
      return fc.oneof(fc.integer({ min: Math.max(min, 1), max: Math.min(max, Math.max(min, 1) + 20) }), fc.integer({ min, max }));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: s.minimum as number | undefined, max: s.maximum as number | undefined });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(valid(s.items ?? {}, doc, depth + 1), { maxLength: 3 });
    case 'object': {
      const props = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = valid(v, doc, depth + 1);
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return anyHostileValue;
  }
}

/** A valid value broken in one way: a field dropped, added, or swapped for a hostile value. */
function invalidObject(schema: Schema, doc: OpenApiDoc): fc.Arbitrary<unknown> {
  const s = deref(schema, doc);
  const keys = Object.keys(s.properties ?? {});
  return fc.oneof(
    anyHostileValue,
    fc.tuple(valid(s, doc), fc.constantFrom(...(keys.length ? keys : ['x'])), anyHostileValue).map(([v, k, bad]) => ({ ...(v as object), [k]: bad })),
    fc.tuple(valid(s, doc), fc.constantFrom(...(keys.length ? keys : ['x']))).map(([v, k]) => {
      const copy = { ...(v as Record<string, unknown>) };
      delete copy[k];
      return copy;
    }),
    fc
      .tuple(
        valid(s, doc),
        fc.oneof(fc.constantFrom('admin', 'id', 'role', 'is_admin', 'user_id', '$where'), fc.string({ maxLength: 10 })),
        anyHostileValue,
      )
      .map(([v, k, extra]) => ({ ...(v as object), [k]: extra })),
  );
}

// ---------------------------------------------------------------- requests

interface Case {
  op: Operation;
  withSession: boolean;
  crossSite: boolean;
  pathValues: Record<string, string>;
  query: string;
  body: { payload: string; contentType: string | null } | null;
}

/** encodeURIComponent, but lone surrogates (which it refuses) go as their UTF-8 replacement bytes. */
function pct(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

function encodeQuery(pairs: Array<[string, unknown]>): string {
  return pairs.map(([k, v]) => `${pct(k)}=${pct(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
}

function pathValue(p: Parameter, doc: OpenApiDoc): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: valid(p.schema, doc).map((v) => pct(String(v))) },
    { weight: 2, arbitrary: anyHostileValue.map((v) => pct(typeof v === 'string' ? v : JSON.stringify(v)).slice(0, 3000)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '..%2F..%2Fetc%2Fpasswd',
        '%00',
        '%',
        '%zz',
        '0x10',
        '1.0',
        '1e3',
        '-0',
        '+1',
        '00001',
        '%20',
        '1%3B%20drop%20table%20bets',
      ),
    },
  );
}

function queryFor(op: Operation, doc: OpenApiDoc): fc.Arbitrary<string> {
  const qs = op.parameters.filter((p) => p.in === 'query');
  const validQuery = fc
    .tuple(...qs.map((p) => fc.option(valid(p.schema, doc), { nil: undefined })))
    .map((vals) => encodeQuery(qs.flatMap((p, i): Array<[string, unknown]> => (vals[i] === undefined ? [] : [[p.name, vals[i]]]))));
  const names = qs.length ? qs.map((p) => p.name) : ['limit'];
  return fc.oneof(
    { weight: 4, arbitrary: validQuery },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...names), anyHostileValue).map(([k, v]) => encodeQuery([[k, v]])) },
    // Duplicate parameters arrive as arrays.
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.integer(), fc.integer()).map(([k, a, b]) => `${k}=${a}&${k}=${b}`) },
    { weight: 1, arbitrary: fc.tuple(hostileString, hostileString).map(([k, v]) => encodeQuery([[k || 'k', v]])) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__[x]=1', 'constructor[prototype][x]=1', '%', 'a=%zz', '&&&', 'limit[]=1', 'limit[$gt]=0') },
  );
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/jsonx',
  '',
];

function bodyFor(op: Operation, doc: OpenApiDoc): fc.Arbitrary<Case['body']> {
  const json = (v: unknown) => ({ payload: JSON.stringify(v) ?? 'null', contentType: 'application/json' });
  const raw = fc.oneof(
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      'nul',
      '{"a":1}{"b":2}',
      '\u0000',
      '{"a":"\\ud800"}',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ),
    fc.string({ unit: 'binary', maxLength: 200 }),
    // Nesting far deeper than any value above, as text: the parser and validator must cope.
    fc.integer({ min: 1000, max: 30000 }).map((n) => `{"a":${'['.repeat(n)}${']'.repeat(n)}}`),
  );
  const wrongType = fc
    .tuple(fc.constantFrom(...CONTENT_TYPES), fc.string({ maxLength: 100 }))
    .map(([contentType, payload]) => ({ payload, contentType: contentType || null }));
  const huge = fc.constant({ payload: JSON.stringify({ x: 'y'.repeat(70 * 1024) }), contentType: 'application/json' });
  const common = [
    { weight: 1, arbitrary: raw.map((payload) => ({ payload, contentType: 'application/json' })) },
    { weight: 1, arbitrary: wrongType },
    { weight: 1, arbitrary: fc.constant(null) },
  ];
  if (!op.body)
    return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: anyHostileValue.map(json) }, ...common, {
      weight: 1,
      arbitrary: huge,
    });
  return fc.oneof(
    { weight: 5, arbitrary: valid(op.body, doc).map(json) },
    { weight: 5, arbitrary: invalidObject(op.body, doc).map(json) },
    ...common,
    { weight: 1, arbitrary: huge },
  );
}

function caseFor(op: Operation, doc: OpenApiDoc): fc.Arbitrary<Case> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  return fc.record({
    op: fc.constant(op),
    withSession: fc.oneof({ weight: 7, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
    crossSite: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    pathValues: fc.tuple(...pathParams.map((p) => pathValue(p, doc))).map((vals) => Object.fromEntries(pathParams.map((p, i) => [p.name, vals[i]]))),
    query: queryFor(op, doc),
    body: bodyFor(op, doc),
  });
}

// ---------------------------------------------------------------- invariants

/** Text that only an internal error would put in a body. */
const LEAK =
  /\n\s+at |\bat [\w.$<>]+ \(|node_modules|[\w-]+\.(ts|js|mjs):\d+|SQLITE_|sqlite3|kysely|duplicate key|violates|syntax error at|ECONN|TypeError|ReferenceError|RangeError|Cannot read prop|undefined is not|is not a function/i;

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor(private readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...(doc as object), $id: 'openapi' } as never);
  }

  private validator(pointer: string) {
    let v = this.validators.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.validators.set(pointer, v);
    }
    return v;
  }

  /** preRouting: the URL does not reach the operation (a malformed escape, a dot segment), so no operation's own answer applies. */
  check(op: Operation, res: LightMyRequestResponse, describe: string, preRouting = false): void {
    const status = res.statusCode;
    const own = preRouting ? undefined : op.responses[String(status)];
    // A shared answer is validated where it is defined.
    const sharedAt = own?.$ref?.replace(/^#/, '');
    const declared = own?.$ref ? this.doc.components.responses?.[own.$ref.replace('#/components/responses/', '')] : own;
    assert.ok(!(status >= 500 && !declared), `${describe}: undeclared ${status}: ${res.body.slice(0, 300)}`);
    // The fakes behind a fuzzing run never fail: an internal error is a bug even where one is declared.
    assert.notEqual(status, 500, `${describe}: internal error: ${res.body.slice(0, 300)}`);
    assert.ok(status >= 200 && status < 600, `${describe}: status ${status}`);
    assert.doesNotMatch(res.body, LEAK, `${describe}: internal text in the body`);
    const type = String(res.headers['content-type'] ?? '');
    if (!/json/.test(type) || res.body === '') return;
    const body = JSON.parse(res.body);
    const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    let pointer: string;
    if (declared) {
      const contentTypes = Object.keys(declared.content ?? {});
      const media = contentTypes.find((c) => type.startsWith(c)) ?? contentTypes[0];
      assert.ok(media, `${describe}: ${status} declares no content but sent ${type}`);
      const at = sharedAt ?? `/paths/${esc(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
      pointer = `${at}/content/${esc(media)}/schema`;
    } else {
      // Statuses the framework answers for every route (404 for an unmatched
      // path value, 413, 415): still SPEC's plain Error shape.
      assert.ok(status >= 400 && status < 500, `${describe}: undeclared ${status}`);
      pointer = '/components/schemas/Error';
    }
    const validate = this.validator(pointer);
    assert.ok(
      validate(body),
      `${describe}: ${status} body does not match its schema: ${JSON.stringify(validate.errors)} in ${res.body.slice(0, 300)}`,
    );
  }
}

// ---------------------------------------------------------------- the run

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export async function fuzzContract(dialect: Dialect, numRuns: number): Promise<{ cases: number; statuses: Record<string, number> }> {
  const t = await createTestApp(dialect);
  try {
    const app: FastifyInstance = t.app;
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDoc;
    const ops = operationsOf(doc);
    assert.ok(ops.length > 10, 'the document lists the operations');
    const checker = new ContractChecker(doc);
    const user = await registerAndLogin(app, 'fuzz');
    let cookie = user.cookie;
    const statuses: Record<string, number> = {};

    const anyCase = fc.oneof(...ops.map((op) => caseFor(op, doc)));
    await fc.assert(
      fc.asyncProperty(anyCase, async (c) => {
        const url = c.op.path.replace(/\{(\w+)\}/g, (_m, name: string) => c.pathValues[name] ?? '1') + (c.query ? `?${c.query}` : '');
        const headers: Record<string, string> = {};
        if (c.withSession) headers.cookie = cookie;
        if (c.crossSite) headers.origin = 'https://evil.example';
        if (c.body?.contentType) headers['content-type'] = c.body.contentType;
        if (process.env.FUZZ_TRACE)
          console.log(`> ${c.op.method} ${url.slice(0, 150)} ct=${c.body?.contentType} body=${(c.body?.payload ?? '').slice(0, 100)}`);
        const started = performance.now();
        const res = await app.inject({
          method: c.op.method as 'GET',
          url,
          headers,
          ...(c.body ? { payload: c.body.payload } : {}),
        });
        const describe = `${c.op.method} ${url.slice(0, 200)} session=${c.withSession} body=${(c.body?.payload ?? '').slice(0, 120)}`;
        if (process.env.FUZZ_TRACE) console.log(Math.round(performance.now() - started), res.statusCode, describe.slice(0, 150));
        // A path value '.' or '..' is resolved away when the URL is parsed: the request names another path.
        const renamed = Object.values(c.pathValues).some((v) => v === '.' || v === '..');
        checker.check(c.op, res, describe, !decodes(url.split('?')[0]) || renamed);
        const key = `${c.op.method} ${c.op.path} ${res.statusCode}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
        // Fuzzing /logout with the session ends it: take a new one.
        if (c.withSession && c.op.path === '/logout' && res.statusCode === 200) {
          const login = await app.inject({ method: 'POST', url: '/login', payload: { email: user.email, password: user.password } });
          cookie = cookieFrom(login);
        }
      }),
      { numRuns, endOnFailure: true, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );

    const health = await app.inject({ method: 'GET', url: '/' });
    assert.equal(health.statusCode, 200);
    assert.equal(health.json().status, 'ok', 'the server is up and its database reachable after the run');
    return { cases: numRuns, statuses };
  } finally {
    await t.close();
  }
}
