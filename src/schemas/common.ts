// SPEC part 7 error shapes and shapes shared by several resources.
import { Kind, type Static, type TSchema, Type, TypeRegistry } from '@sinclair/typebox';

/** A reference to a shared schema by its $id, typed as the schema itself. */
export function ref<T extends TSchema>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

/** A string enum as OpenAPI writes it ({ type: string, enum }), typed as the union of its values. */
export function StringEnum<const T extends string[]>(values: [...T], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ [Kind]: 'StringEnum', type: 'string', enum: values, ...options });
}
/** A string without NUL characters: PostgreSQL can neither store nor compare them (400, never 500). */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Free text from a client (see NO_NUL_PATTERN). */
export function Text(options: { minLength?: number; maxLength?: number; description?: string } = {}) {
  return Type.String({ ...options, pattern: NO_NUL_PATTERN });
}

// So TypeBox's own Value.Check understands it too (Ajv reads `enum`).
TypeRegistry.Set<{ enum: string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));

// Bounded building blocks. Every string, integer and array in the document
// has a bound: on requests the server enforces it, on responses it is what
// the server can produce.

type Annotations = { description?: string };

/** Row ids are PostgreSQL bigserials; JSON carries them as safe integers. */
export const Id = (options: Annotations = {}) => Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...options });

/** Counts of rows, events or places. */
export const Count = (options: Annotations = {}) => Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...options });

export const DateString = (options: Annotations = {}) => Type.String({ format: 'date', maxLength: 10, ...options });

/** ISO 8601 instants (toISOString: 24 characters; 32 leaves room for an offset and microseconds). */
export const DateTime = (options: Annotations = {}) => Type.String({ format: 'date-time', maxLength: 32, ...options });

export const Url = (options: Annotations = {}) => Type.String({ format: 'uri', maxLength: 2048, ...options });

/** DESIGN's stored ticker (upper-cased, 1 to 15 of A-Z, 0-9, "." and "-"). */
export const Ticker = (options: Annotations = {}) => Type.String({ minLength: 1, maxLength: 15, pattern: '^[A-Z0-9][A-Z0-9.-]{0,14}$', ...options });

/** Registration allows 3 to 30 of [A-Za-z0-9_]; a deleted account's anonymous name adds ':' and is shorter. */
export const Username = () => Type.String({ minLength: 1, maxLength: 30, pattern: '^[A-Za-z0-9_:]+$' });

/** A sentence the server writes (a message, a reason): never client text. */
export const ServerText = (maxLength = 1000) => Type.String({ maxLength });

/**
 * Error texts are short sentences; the longest is the 404 for an unknown
 * route, which repeats the path, and the server's 16 KiB header limit bounds that.
 */
export const ErrorSchema = Type.Object({ error: Type.String({ maxLength: 16_500 }) }, { $id: 'Error', additionalProperties: false });

export const LimitErrorSchema = Type.Object(
  { error: Type.Literal('LIMIT_REACHED'), message: ServerText(), limit: Count({ description: 'The capacity that was reached' }) },
  { $id: 'LimitError', additionalProperties: false },
);

export const CancelWindowErrorSchema = Type.Object(
  { error: ServerText(), message: ServerText() },
  { $id: 'CancelWindowError', additionalProperties: false },
);

export const MessageResponseSchema = Type.Object({ message: ServerText() }, { $id: 'MessageResponse', additionalProperties: false });

/** SPEC part 8's page size bound: every paged list holds at most this many items. */
export const PAGE_MAX = 500;

/** limit/offset paging of SPEC part 4 (history, public profile, feed). */
export const PageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_MAX, default: 100 }),
    offset: Type.Integer({ format: 'int32', minimum: 0, maximum: 10000, default: 0 }),
  },
  { additionalProperties: false },
);

/** A page of a paged list: SPEC's limit bounds it. */
export const Page = <T extends TSchema>(item: T, options: Annotations = {}) => Type.Array(item, { maxItems: PAGE_MAX, ...options });

const ErrorRef = ref(ErrorSchema);

/** Response entries for error statuses that use the plain Error shape. */
export function errorResponses<const C extends number>(...codes: C[]): Record<C, typeof ErrorRef> {
  const out = {} as Record<C, typeof ErrorRef>;
  for (const c of codes) out[c] = ErrorRef;
  return out;
}

/** A 403 that is either a plan limit or a cross-site refusal (Error shape). */
export const Limit403 = Type.Union([ref(LimitErrorSchema), ErrorRef]);
/** A 403 that is either the cancel-window error or a cross-site refusal. */
export const CancelWindow403 = Type.Union([ref(CancelWindowErrorSchema), ErrorRef]);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
