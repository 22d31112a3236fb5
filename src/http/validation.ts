// Request validation. JSON bodies are validated strictly: no type coercion
// ("10" is not a number), unknown fields are refused, not silently dropped.
// Query strings and path parameters arrive as text, so they are coerced.
import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, shared: TSchema[]): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  for (const s of shared) ajv.addSchema(s);
  return ajv;
}

export function installValidators(app: FastifyInstance, shared: TSchema[]): void {
  const bodyAjv = makeAjv(false, shared);
  const textAjv = makeAjv(true, shared);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return ajv.compile(schema) as ReturnType<Ajv['compile']>;
  });
}
