// Request validation. JSON bodies are validated strictly: no type coercion
// ("10" is not a number), unknown fields are refused, not silently dropped.
// Query strings and path parameters arrive as text, so they are coerced; but
// Ajv's coercion is JavaScript's Number(), which reads 0x1, 1e0, 0b1, +1, " 1",
// 1.0 and Infinity as numbers. An integer in the URL must be plain ASCII
// digits within the safe-integer range, checked before Ajv coerces it, so the
// document keeps `type: integer` and its bounds.
//
// A route's validators are compiled on its first request: a start calls no
// route, and a test a few. Ajv does not check the schemas against the JSON
// Schema meta-schema at each start (compiling the meta-schema's validator cost
// more than all the route schemas): they are code, and test/contract/openapi.test.ts
// checks every one of them.
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, RouteOptions } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, shared: TSchema[]): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    validateSchema: false,
  });
  addFormats(ajv);
  for (const s of shared) ajv.addSchema(s);
  return ajv;
}

type JsonSchema = { $ref?: string; type?: unknown; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema> };

/** At most 16 digits: Number.isSafeInteger then settles the range (2^53 − 1 has 16). */
const DECIMAL_DIGITS = /^[0-9]{1,16}$/;

export function isDecimalInteger(text: unknown): boolean {
  return typeof text === 'string' && DECIMAL_DIGITS.test(text) && Number.isSafeInteger(Number(text));
}

function acceptsInteger(schema: JsonSchema, ajv: Ajv): boolean {
  const s = schema.$ref ? ((ajv.getSchema(schema.$ref)?.schema as JsonSchema | undefined) ?? schema) : schema;
  if (s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'))) return true;
  return (s.anyOf ?? []).some((alt) => acceptsInteger(alt, ajv));
}

/** Validates integer members as decimal digits first, then the whole object with Ajv (which coerces them). */
function digitsFirst(validate: ValidateFunction, names: string[]): ValidateFunction {
  const wrapped = ((data: Record<string, unknown> | null, dataCtx?: unknown) => {
    for (const name of names) {
      const value = data?.[name];
      if (value === undefined || isDecimalInteger(value)) continue;
      const error: ErrorObject = {
        instancePath: `/${name}`,
        schemaPath: `#/properties/${name}/type`,
        keyword: 'type',
        params: { type: 'integer' },
        message: `must be an integer written in decimal digits (0 to ${Number.MAX_SAFE_INTEGER})`,
      };
      wrapped.errors = [error];
      return false;
    }
    const ok = validate(data, dataCtx as never);
    wrapped.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  // Fastify passes the parent object (so Ajv may replace the root) only to a function that carries this.
  Object.assign(wrapped, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return wrapped;
}

/** Compiles on the first call, then behaves as the compiled validator. */
function lazily(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const wrapped = ((data: unknown, dataCtx?: unknown) => {
    validate ??= compile();
    const ok = validate(data, dataCtx as never);
    wrapped.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  // Every validator here is Ajv's, to which Fastify passes the parent object when it carries schemaEnv (see digitsFirst).
  Object.assign(wrapped, { schemaEnv: true });
  return wrapped;
}

/** No query parameters: an unknown one is refused like any other invalid request. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

/**
 * Every documented route refuses unknown query parameters: one without a
 * querystring schema gets an empty closed one, and one with a schema must say
 * whether it is closed. Hidden routes (the web app, /docs, provider webhooks)
 * keep their own rules.
 */
function closeQueryStrings(routeOptions: RouteOptions): void {
  const schema = routeOptions.schema as (Record<string, unknown> & { hide?: boolean; querystring?: { additionalProperties?: unknown } }) | undefined;
  if (!schema || schema.hide) return;
  if (schema.querystring === undefined) {
    schema.querystring = NO_QUERY;
    return;
  }
  if (schema.querystring.additionalProperties === undefined) {
    const methods = [routeOptions.method].flat().join(',');
    throw new Error(`${methods} ${routeOptions.url}: the querystring schema must set additionalProperties (false refuses unknown parameters)`);
  }
}

export function installValidators(app: FastifyInstance, shared: TSchema[]): void {
  const bodyAjv = makeAjv(false, shared);
  const textAjv = makeAjv(true, shared);
  const compile = (schema: TSchema, httpPart: string | undefined): ValidateFunction => {
    if (httpPart === 'body') return bodyAjv.compile(schema);
    const validate = textAjv.compile(schema);
    if (httpPart !== 'params' && httpPart !== 'querystring') return validate;
    const root = (schema as JsonSchema).$ref
      ? (textAjv.getSchema((schema as JsonSchema).$ref as string)?.schema as JsonSchema)
      : (schema as JsonSchema);
    const properties = root?.properties ?? {};
    const integers = Object.keys(properties).filter((name) => acceptsInteger(properties[name] as JsonSchema, textAjv));
    return integers.length === 0 ? validate : digitsFirst(validate, integers);
  };
  app.addHook('onRoute', closeQueryStrings);
  app.setValidatorCompiler(({ schema, httpPart }) => lazily(() => compile(schema as TSchema, httpPart)));
}
