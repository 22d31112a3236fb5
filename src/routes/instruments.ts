// The instrument directory (DESIGN: GET /instruments) and one instrument with
// its chart. Public reads, so visitors can look before they sign up (DESIGN),
// limited per address like the others. Every listed instrument costs a quote
// from the price provider, whose quota (Finnhub's: one page asks for up to 50)
// visitors must not spend: without a session the answer holds only what the
// shared quote cache already holds (src/services/price-requests.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { optionalSessionRoute } from '../http/route-options.js';
import { errorResponses, ref, Text } from '../schemas/common.js';
import {
  InstrumentChartQuerySchema,
  InstrumentChartResponseSchema,
  InstrumentListQuerySchema,
  InstrumentListResponseSchema,
} from '../schemas/instruments.js';
import { instrumentChart, listInstruments } from '../services/instruments.js';
import { quoteSourceOf as sourceOf } from '../services/price-requests.js';

const SymbolParams = Type.Object({
  symbol: Text({ minLength: 1, maxLength: 32, description: 'A symbol, any case (1 to 15 of A-Z, 0-9, "." and "-")' }),
});

export const instrumentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/instruments',
    optionalSessionRoute(app, {
      schema: {
        tags: ['trading'],
        operationId: 'listInstruments',
        summary: 'Instrument directory: search by symbol or name',
        description:
          'Symbol, name, kind (stock, etf, crypto), exchange, whether its market is open now with the next open and close, and ' +
          'a dated quote with the daily change (null for an instrument whose quote failed). Best matches first; paged with ' +
          '`limit` (at most 50) and `offset`. Without a session, the quotes the service already holds in its cache, of any age ' +
          '(each dated by its as_of), and quote null for the others: a visitor never makes it ask the price provider.',
        querystring: InstrumentListQuerySchema,
        response: { 200: ref(InstrumentListResponseSchema), ...errorResponses(400) },
      },
    }),
    async (request) => listInstruments(ctx, request.query.q, request.query.limit, request.query.offset, request.query.sort, sourceOf(request)),
  );

  app.get(
    '/instruments/:symbol',
    optionalSessionRoute(app, {
      schema: {
        tags: ['trading'],
        operationId: 'getInstrument',
        summary: 'One instrument with its price chart, from one quote',
        description:
          "The instrument as listed by /instruments and its chart over `range` (1d by default); the chart's last point is the " +
          "instrument's quote. Badly formed symbol 400, not in the directory 404; 503 with Retry-After while the price provider is down. " +
          'Without a session, only what the cache holds: the cached quote and chart, no points and quote null when it holds none.',
        params: SymbolParams,
        querystring: InstrumentChartQuerySchema,
        response: { 200: ref(InstrumentChartResponseSchema), ...errorResponses(400, 404, 503) },
      },
    }),
    async (request) => instrumentChart(ctx, request.params.symbol, request.query.range, sourceOf(request)),
  );
};
