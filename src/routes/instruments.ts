// The instrument directory (DESIGN: GET /instruments) and one instrument with
// its chart. Authenticated like /price/{ticker}: every listed instrument costs
// a quote from the price provider, whose quota (Finnhub's) anonymous visitors
// must not spend; and limited per user like the other costly reads, since one
// page asks for up to 50 quotes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sessionRoute } from '../http/route-options.js';
import { errorResponses, ref, Text } from '../schemas/common.js';
import {
  InstrumentChartQuerySchema,
  InstrumentChartResponseSchema,
  InstrumentListQuerySchema,
  InstrumentListResponseSchema,
} from '../schemas/instruments.js';
import { instrumentChart, listInstruments } from '../services/instruments.js';

const SymbolParams = Type.Object({
  symbol: Text({ minLength: 1, maxLength: 32, description: 'A symbol, any case (1 to 15 of A-Z, 0-9, "." and "-")' }),
});

export const instrumentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/instruments',
    sessionRoute(app, {
      limit: 'costly reads',
      schema: {
        tags: ['trading'],
        operationId: 'listInstruments',
        summary: 'Instrument directory: search by symbol or name',
        description:
          'Symbol, name, kind (stock, etf, crypto), exchange, whether its market is open now with the next open and close, and ' +
          'a dated quote with the daily change (null for an instrument whose quote failed). Best matches first; paged with ' +
          '`limit` (at most 50) and `offset`.',
        querystring: InstrumentListQuerySchema,
        response: { 200: ref(InstrumentListResponseSchema), ...errorResponses(400) },
      },
    }),
    async (request) => listInstruments(ctx, request.query.q, request.query.limit, request.query.offset, request.query.sort),
  );

  app.get(
    '/instruments/:symbol',
    sessionRoute(app, {
      limit: 'costly reads',
      schema: {
        tags: ['trading'],
        operationId: 'getInstrument',
        summary: 'One instrument with its price chart, from one quote',
        description:
          "The instrument as listed by /instruments and its chart over `range` (1d by default); the chart's last point is the " +
          "instrument's quote. Badly formed symbol 400, not in the directory 404; 503 with Retry-After while the price provider is down.",
        params: SymbolParams,
        querystring: InstrumentChartQuerySchema,
        response: { 200: ref(InstrumentChartResponseSchema), ...errorResponses(400, 404, 503) },
      },
    }),
    async (request) => instrumentChart(ctx, request.params.symbol, request.query.range),
  );
};
