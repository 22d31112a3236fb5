// Prices, the bet lifecycle, portfolio, history and leaderboard.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { COOKIE_AUTH } from '../http/openapi.js';
import { principalOf } from '../http/types.js';
import {
  BetDetailSchema,
  CancelBetResponseSchema,
  ClosedBetSchema,
  CloseBetRequestSchema,
  CloseBetResponseSchema,
  LeaderboardUserSchema,
  OpenBetRequestSchema,
  HistoryRangeSchema,
  OpenBetResponseSchema,
  PortfolioBetSchema,
  PriceHistoryResponseSchema,
  TickerPriceResponseSchema,
  type TickerPriceResponse,
} from '../schemas/bets.js';
import { CancelWindow403, errorResponses, Limit403, PageQuerySchema, ref } from '../schemas/common.js';
import { betDetail, cancelBet, closeBet, history, openBet, portfolio } from '../services/bets.js';
import { priceOrUnavailable, tickerHistory, tickerOrBadRequest } from '../services/price-requests.js';
import { leaderboard } from '../services/rankings.js';
import { authenticatedWrite, publicRateLimit } from '../http/route-options.js';
import { LeaderboardQuerySchema } from '../schemas/rankings.js';

/** 503 while the price provider is down, with the Retry-After header declared in the document. */
const PriceUnavailable503 = Type.Unsafe<{ error: string }>({
  ...errorResponses(503)[503],
  headers: { 'retry-after': { type: 'integer', description: 'Seconds to wait before retrying' } },
});

export const tradingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const auth = { config: { auth: true } };
  const publicLimit = publicRateLimit(ctx.config);

  app.get(
    '/price/:ticker',
    {
      ...auth,
      schema: {
        tags: ['trading'],
        summary: 'Current price of a ticker',
        description: 'Badly formed ticker 400, unknown ticker 404; 503 with Retry-After while the price provider is down.',
        security: COOKIE_AUTH,
        params: Type.Object({ ticker: Type.String() }),
        response: { 200: ref(TickerPriceResponseSchema), ...errorResponses(400, 401, 404), 503: PriceUnavailable503 },
      },
    },
    async (request): Promise<TickerPriceResponse> => {
      const ticker = tickerOrBadRequest(request.params.ticker);
      return { ticker, price: await priceOrUnavailable(ctx, ticker) };
    },
  );

  app.get(
    '/price/:ticker/history',
    {
      ...auth,
      schema: {
        tags: ['trading'],
        summary: 'Price points of a ticker for charts',
        description: 'Oldest first, ending now; `range` 1d (default), 5d, 1m, 3m or 1y. Stocks show no points while NYSE is closed.',
        security: COOKIE_AUTH,
        params: Type.Object({ ticker: Type.String() }),
        querystring: Type.Object({ range: HistoryRangeSchema }, { additionalProperties: false }),
        response: { 200: ref(PriceHistoryResponseSchema), ...errorResponses(400, 401, 404), 503: PriceUnavailable503 },
      },
    },
    async (request) => tickerHistory(ctx, request.params.ticker, request.query.range),
  );

  app.get(
    '/bet/:bet_id',
    {
      config: publicLimit,
      schema: {
        tags: ['trading'],
        summary: 'One bet with its owner (public, like profiles)',
        description: 'A CLOSED or CANCELLED bet as it ended; an OPEN bet marked to market now (exit_price is the current price).',
        params: Type.Object({ bet_id: Type.Integer() }),
        response: { 200: ref(BetDetailSchema), ...errorResponses(400, 404, 429) },
      },
    },
    async (request) => betDetail(ctx, request.params.bet_id),
  );

  app.post(
    '/bet/open',
    {
      config: authenticatedWrite(ctx.config),
      schema: {
        tags: ['trading'],
        summary: 'Open a bet at the current server price',
        description:
          'target_date (UTC, today allowed) makes the bet settle automatically: stocks and ETFs at the first NYSE close ' +
          'on or after it, crypto at 00:00 UTC after it. 403 LIMIT_REACHED at bet_capacity open bets; 503 with ' +
          'Retry-After while the price provider is down.',
        security: COOKIE_AUTH,
        body: ref(OpenBetRequestSchema),
        response: { 200: ref(OpenBetResponseSchema), ...errorResponses(400, 401, 404, 413, 415), 403: Limit403, 503: PriceUnavailable503 },
      },
    },
    async (request) => openBet(ctx, principalOf(request).userId, request.body),
  );

  app.post(
    '/bet/close',
    {
      config: authenticatedWrite(ctx.config),
      schema: {
        tags: ['trading'],
        summary: 'Close an open bet at the current server price',
        description: "400 when the bet is missing, not the caller's or not open; 500 when the price cannot be fetched (the bet stays open).",
        security: COOKIE_AUTH,
        body: ref(CloseBetRequestSchema),
        response: { 200: ref(CloseBetResponseSchema), ...errorResponses(400, 401, 403, 413, 415, 500) },
      },
    },
    async (request) => closeBet(ctx, principalOf(request).userId, request.body.bet_id),
  );

  app.delete(
    '/bet/:bet_id',
    {
      config: authenticatedWrite(ctx.config),
      schema: {
        tags: ['trading'],
        summary: 'Cancel a bet within 5 minutes of opening',
        description: 'Kept in history at 0 % and never on the leaderboard. After 5 minutes 403: close it instead.',
        security: COOKIE_AUTH,
        params: Type.Object({ bet_id: Type.Integer() }),
        response: { 200: ref(CancelBetResponseSchema), ...errorResponses(400, 401, 404), 403: CancelWindow403 },
      },
    },
    async (request) => cancelBet(ctx, principalOf(request).userId, request.params.bet_id),
  );

  app.get(
    '/portfolio',
    {
      ...auth,
      schema: {
        tags: ['trading'],
        summary: "The caller's open bets, marked to market",
        description: 'Marked at the cached current price; the last known price when the provider is down.',
        security: COOKIE_AUTH,
        response: { 200: Type.Array(ref(PortfolioBetSchema)), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { userId } = principalOf(request);
      return portfolio(ctx, userId);
    },
  );

  app.get(
    '/history',
    {
      ...auth,
      schema: {
        tags: ['trading'],
        summary: "The caller's closed and cancelled bets, newest first",
        description: 'Ordered by exit time (the cancel time for CANCELLED bets); each carries its status.',
        security: COOKIE_AUTH,
        querystring: PageQuerySchema,
        response: { 200: Type.Array(ref(ClosedBetSchema)), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { userId } = principalOf(request);
      const { limit, offset } = request.query;
      return history(ctx, userId, limit, offset);
    },
  );

  app.get(
    '/leaderboard',
    {
      config: publicLimit,
      schema: {
        tags: ['trading'],
        summary: 'Top traders by the sum of their closed-bet gains',
        description:
          'Users with at least one CLOSED bet; total_score is the sum of their CLOSED gains (percent), total_trades the ' +
          'count; ordered by score, then trades, then id; top 100. Cancelled bets and deleted accounts never count. ' +
          'Without parameters: all time (SPEC). Optional `period` (7d, 30d, 90d, 365d, all) narrows to a rolling window ' +
          'by exit time, day-granular: whole UTC days, `7d` being today and the 6 days before it, read from per-day ' +
          'aggregates; optional `min_trades` keeps users with at least that many closed bets in the window.',
        querystring: LeaderboardQuerySchema,
        response: { 200: Type.Array(ref(LeaderboardUserSchema)), ...errorResponses(400, 429) },
      },
    },
    async (request) => leaderboard(ctx, request.query),
  );
};
