// The instrument directory (DESIGN: GET /instruments) and one instrument with
// its chart (GET /instruments/{symbol}).
import { type Static, Type } from '@sinclair/typebox';
import { INSTRUMENT_QUERY_MAX } from '../domain/instruments.js';
import { DateTime, NO_NUL_PATTERN, Nullable, StringEnum, Ticker, ref } from './common.js';
import { HistoryRangeSchema } from './bets.js';

/** One page of the directory holds at most this many instruments (each needs a quote). */
export const INSTRUMENTS_PAGE_MAX = 50;

export const MarketStatusSchema = Type.Object(
  {
    open: Type.Boolean({ description: 'Whether the market trades now (crypto: always)' }),
    next_open: Nullable(DateTime({ description: 'The next session opens (null for crypto, which never closes)' })),
    next_close: Nullable(DateTime({ description: 'The current or next session closes (null for crypto)' })),
  },
  { $id: 'MarketStatus', additionalProperties: false },
);

export const InstrumentQuoteSchema = Type.Object(
  {
    price: Type.Number({ description: 'The last price' }),
    as_of: DateTime({ description: 'When that price was made: now, or for a stock outside NYSE hours its last close' }),
    previous_close: Nullable(Type.Number({ description: "Stocks and ETFs: the previous session's close; crypto: the price 24 hours before" })),
    change: Nullable(Type.Number({ description: 'price − previous_close' })),
    change_percent: Nullable(Type.Number({ description: '(price − previous_close) / previous_close × 100, 2 decimals' })),
  },
  { $id: 'InstrumentQuote', additionalProperties: false },
);
export type InstrumentQuote = Static<typeof InstrumentQuoteSchema>;

export const InstrumentSchema = Type.Object(
  {
    symbol: Ticker(),
    name: Type.String({ maxLength: 100 }),
    kind: StringEnum(['stock', 'etf', 'crypto']),
    exchange: Type.String({ maxLength: 50 }),
    market: ref(MarketStatusSchema),
    quote: Nullable(ref(InstrumentQuoteSchema)),
  },
  { $id: 'Instrument', additionalProperties: false },
);
export type Instrument = Static<typeof InstrumentSchema>;

export const InstrumentListQuerySchema = Type.Object(
  {
    q: Type.String({
      maxLength: INSTRUMENT_QUERY_MAX,
      pattern: NO_NUL_PATTERN,
      default: '',
      description: 'Search text: a symbol or its start, or part of the name (case-insensitive); empty lists everything',
    }),
    limit: Type.Integer({ format: 'int32', minimum: 1, maximum: INSTRUMENTS_PAGE_MAX, default: 20 }),
    offset: Type.Integer({ format: 'int32', minimum: 0, maximum: 10000, default: 0 }),
    sort: StringEnum(['relevance', 'consensus'], {
      default: 'relevance',
      description:
        '`relevance` (default): best matches first. `consensus`: by the skill-weighted consensus (GET /instruments/{symbol}/consensus), the highest weighted long share first; instruments without a weighted figure follow in relevance order',
    }),
  },
  { additionalProperties: false },
);

export const InstrumentListResponseSchema = Type.Object(
  {
    instruments: Type.Array(ref(InstrumentSchema), { maxItems: INSTRUMENTS_PAGE_MAX }),
    total: Type.Integer({ format: 'int32', minimum: 0, maximum: 100_000, description: 'Instruments matching the search, over all pages' }),
  },
  { $id: 'InstrumentListResponse', additionalProperties: false },
);
export type InstrumentListResponse = Static<typeof InstrumentListResponseSchema>;

export const InstrumentChartQuerySchema = Type.Object({ range: HistoryRangeSchema }, { additionalProperties: false });

export const InstrumentChartResponseSchema = Type.Object(
  {
    instrument: ref(InstrumentSchema),
    range: StringEnum(['1d', '5d', '1m', '3m', '1y']),
    points: Type.Array(Type.Object({ t: DateTime(), price: Type.Number() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: "Oldest first; the last point is the instrument's quote (its as_of and price), so a headline and the chart agree",
    }),
  },
  { $id: 'InstrumentChartResponse', additionalProperties: false },
);
export type InstrumentChartResponse = Static<typeof InstrumentChartResponseSchema>;
