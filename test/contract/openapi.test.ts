// The OpenAPI document is the contract: valid OpenAPI 3.1, and everything
// SPEC.md lists is there with its shape (the document may add more).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestApp } from '../helpers/app.js';
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
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}

interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content: Record<string, { schema: Schema }> }>;
}

// A type, not an interface, so that it is the plain record the validator takes.
type OpenApiDocument = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, unknown>> };
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

  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
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
      const ok = op.responses[String(code)];
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
        const r = op.responses[String(status)];
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
});
