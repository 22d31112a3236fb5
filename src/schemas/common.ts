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

export const ErrorSchema = Type.Object({ error: Type.String() }, { $id: 'Error', additionalProperties: false });

export const LimitErrorSchema = Type.Object(
  { error: Type.Literal('LIMIT_REACHED'), message: Type.String(), limit: Type.Integer() },
  { $id: 'LimitError', additionalProperties: false },
);

export const CancelWindowErrorSchema = Type.Object(
  { error: Type.String(), message: Type.String() },
  { $id: 'CancelWindowError', additionalProperties: false },
);

export const MessageResponseSchema = Type.Object({ message: Type.String() }, { $id: 'MessageResponse', additionalProperties: false });

/** limit/offset paging of SPEC part 4 (history, public profile, feed). */
export const PageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    offset: Type.Integer({ minimum: 0, maximum: 10000, default: 0 }),
  },
  { additionalProperties: false },
);

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
