// Response serializers: fast-json-stringify, as Fastify's own compiler uses
// it, at a fraction of the start-up cost. Fastify's compiler builds every
// route's serializers (each status, and again for the HEAD twin) before the
// server starts, handing each build all the shared schemas (about 75), which
// fast-json-stringify checks and indexes again every time: that was half of
// the start, and every test that builds the app paid it. Here a serializer is
// built when first used (a test calls a few routes; a start calls none), with
// only the shared schemas its schema refers to, and once for all the routes
// that answer with an equal schema. A nullable primitive is handed to it as a
// type list (nullableAsTypeList), which it serializes with a null check where
// it ran Ajv on each value; the answers are byte for byte the same.
import type { FastifyReply } from 'fastify';
import build, { type Options } from 'fast-json-stringify';
import { nullableAsTypeList } from '../schemas/nullable-types.js';

type Serializer = (doc: unknown) => string;
type SchemaMap = Record<string, unknown>;
type Build = (schema: unknown, options: Options) => Serializer;

/**
 * The shared schemas a schema refers to, by $id, with those they refer to in
 * turn; null when it holds a reference (or an $id) this cannot follow, so that
 * fast-json-stringify then resolves it with every shared schema at hand.
 */
function referencedSchemas(root: unknown, shared: SchemaMap): SchemaMap | null {
  const found: SchemaMap = {};
  const pending: unknown[] = [root];
  const seen = new Set<unknown>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    const { $ref, $id } = node as { $ref?: unknown; $id?: unknown };
    // A nested $id changes the base that relative references resolve against.
    if ($id !== undefined && !Object.values(shared).includes(node) && node !== root) return null;
    if (typeof $ref === 'string') {
      const id = $ref.split('#')[0] as string;
      if (id !== '' && !Object.hasOwn(found, id)) {
        if (!Object.hasOwn(shared, id)) return null;
        found[id] = shared[id];
        pending.push(shared[id]);
      }
    }
    pending.push(...Object.values(node));
  }
  return found;
}

function sameSchemas(a: SchemaMap, b: SchemaMap): boolean {
  return Object.keys(a).every((id) => a[id] === b[id]);
}

/** Whether JSON says all of a value's own level (not undefined, a function, a number JSON lacks, an object that is not plain). */
function isPlainJson(value: unknown): boolean {
  if (value === undefined || typeof value === 'function' || typeof value === 'bigint' || typeof value === 'symbol') return false;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The schema as JSON text: routes that answer with equal schemas (each its own
 * `ref(X)` object) share a serializer. Null when JSON cannot say all of it.
 */
function keyOf(schema: unknown): string | null {
  let plain = true;
  const text = JSON.stringify(schema, function (this: Record<string, unknown>, name: string, value: unknown) {
    if (!isPlainJson(this[name])) plain = false;
    return typeof value === 'bigint' ? null : value;
  });
  return plain ? text : null;
}

/**
 * A serializer factory for Fastify's `schemaController.compilersFactory.buildSerializer`.
 * Fastify calls it once for each plugin context that compiles responses (with
 * the server's serializer options, the same each time); what it builds is kept
 * across those contexts, and reused while the shared schemas it used are the same ones.
 * A schema fast-json-stringify refuses would fail its first answer (a 500)
 * instead of the start: test/contract/openapi.test.ts checks every schema and
 * builds a serializer for every shared one.
 */
export function serializerFactory() {
  const built = new Map<string, { uses: SchemaMap; serialize: Serializer }>();
  return (externalSchemas: unknown = {}, serializerOptions: Options = {}) =>
    ({ schema }: { schema?: unknown }): Serializer => {
      const shared = { ...(externalSchemas as SchemaMap) };
      const ownId = (schema as { $id?: unknown } | undefined)?.$id;
      // Fastify's compiler leaves out the shared schema a route answers with itself, which the build adds as its root.
      if (typeof ownId === 'string' && shared[ownId] !== undefined) delete shared[ownId];
      const key = keyOf(schema);
      const cached = key === null ? undefined : built.get(key);
      if (cached && sameSchemas(cached.uses, shared)) return cached.serialize;
      const uses = referencedSchemas(schema, shared) ?? shared;
      let compiled: Serializer | undefined;
      const serialize: Serializer = (doc) => {
        compiled ??= (build as unknown as Build)(nullableAsTypeList(schema), {
          ...serializerOptions,
          schema: Object.fromEntries(Object.entries(uses).map(([id, s]) => [id, nullableAsTypeList(s)])) as Options['schema'],
        });
        return compiled(doc);
      };
      if (key !== null) built.set(key, { uses, serialize });
      return serialize;
    };
}

/**
 * Sends an answer that is already JSON text (a page of history made of the
 * bets' stored views, src/services/bets.ts historyJson) as it is: Fastify
 * serializes no string sent with a JSON content type. The route's response
 * schema still documents it, and its tests check it against that schema.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
