// Nullable primitives reach fast-json-stringify as type lists
// (src/http/serialization.ts): the answers are the same bytes as with the
// anyOf TypeBox writes, for values and nulls alike, while enums, references
// and objects keep their anyOf.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import build from 'fast-json-stringify';
import { nullableAsTypeList } from '../../src/schemas/nullable-types.js';
import { PortfolioBetSchema } from '../../src/schemas/bets.js';
import { DateString, DateTime, Nullable, StringEnum } from '../../src/schemas/common.js';

const Row = Type.Object(
  {
    at: Nullable(DateTime()),
    day: Nullable(DateString()),
    price: Nullable(Type.Number({ minimum: 0 })),
    count: Nullable(Type.Integer()),
    ok: Nullable(Type.Boolean()),
    name: Type.Union([Type.String({ maxLength: 20 }), Type.Null()], { description: 'kept beside the type list' }),
    side: Nullable(StringEnum(['LONG', 'SHORT'])),
    nested: Nullable(Type.Object({ a: Type.Number() })),
  },
  { additionalProperties: false },
);

test('only anyOf [primitive, null] becomes a type list; the keywords beside it stay', () => {
  const out = nullableAsTypeList(Row) as { properties: Record<string, Record<string, unknown>> };
  const p = out.properties;
  assert.deepEqual(p.at, { ...JSON.parse(JSON.stringify(DateTime())), type: ['string', 'null'] });
  assert.deepEqual(p.price, { type: ['number', 'null'], minimum: 0 });
  assert.deepEqual(p.name, { type: ['string', 'null'], maxLength: 20, description: 'kept beside the type list' });
  assert.ok(Array.isArray(p.side?.anyOf), 'an enum keeps its anyOf (a type list would admit any string)');
  assert.ok(Array.isArray(p.nested?.anyOf), 'an object keeps its anyOf');
  assert.ok(Array.isArray((Row.properties.at as { anyOf?: unknown }).anyOf), 'the schema itself is not changed');
});

test('the serialized bytes are the same as with the anyOf, for values and for nulls', () => {
  const before = build(Row as object);
  const after = build(nullableAsTypeList(Row) as object);
  const values = [
    { at: '2026-11-30T10:00:00.000Z', day: '2026-12-01', price: 1.25, count: 3, ok: true, name: 'a "quoted" name', side: 'LONG', nested: { a: 1 } },
    { at: null, day: null, price: null, count: null, ok: null, name: null, side: null, nested: null },
    { at: '2026-11-30T10:00:00.000Z', day: null, price: 0, count: 0, ok: false, name: '', side: 'SHORT', nested: null },
  ];
  for (const v of values) assert.equal(after(v), before(v));
  const portfolio = [
    {
      id: 1,
      ticker: 'AAPL',
      direction: 'LONG',
      entry: 1.5,
      current: 2.5,
      unrealized_gain: 66.6,
      target_date: null,
      entry_date: '2026-11-30T10:00:00.000Z',
      cancelable_until: null,
    },
    {
      id: 2,
      ticker: 'BTC-USD',
      direction: 'SHORT',
      entry: 9,
      current: 8,
      unrealized_gain: 11.1,
      target_date: '2026-12-24',
      entry_date: null,
      cancelable_until: '2026-11-30T10:05:00.000Z',
    },
  ];
  const list = Type.Array(PortfolioBetSchema);
  assert.equal(build(nullableAsTypeList(list) as object)(portfolio), build(list as object)(portfolio));
});
