// Prices, the bet lifecycle, portfolio, history and leaderboard.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../http/types.js';
import {
  BetDetailSchema,
  BetExitsSchema,
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
  SetExitsRequestSchema,
  TickerPriceResponseSchema,
  type TickerPriceResponse,
  ThesisActionResponseSchema,
} from '../schemas/bets.js';
import { CancelWindow403, errorResponses, Id, Limit403, Page, PageQuerySchema, ref, Text } from '../schemas/common.js';
import { betDetail, cancelBet, closeBet, historyJson, openBet, portfolio } from '../services/bets.js';
import { priceOrUnavailable, quoteSourceOf, tickerHistory, tickerOrBadRequest } from '../services/price-requests.js';
import { betExits, setExits } from '../services/exit-rules.js';
import { leaderboard, rankedLeaderboard } from '../services/rankings.js';
import { hideOwnThesis, reportThesis } from '../services/theses.js';
import { sharedAnswerSender } from '../http/cache-control.js';
import { optionalSessionRoute, publicRoute, sessionRoute } from '../http/route-options.js';
import { sendJsonText } from '../http/serialization.js';
import { LeaderboardQuerySchema, TOP_ROWS } from '../schemas/rankings.js';

const TickerParams = Type.Object({
  ticker: Text({ minLength: 1, maxLength: 32, description: 'A ticker, any case (DESIGN: 1 to 15 of A-Z, 0-9, "." and "-")' }),
});
const BetParams = Type.Object({ bet_id: Id() });

export const tradingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const sendShared = sharedAnswerSender();

  app.get(
    '/price/:ticker',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['trading'],
        operationId: 'getPrice',
        summary: 'Current price of a ticker',
        description: 'Badly formed ticker 400, unknown ticker 404; 503 with Retry-After while the price provider is down.',
        params: TickerParams,
        response: { 200: ref(TickerPriceResponseSchema), ...errorResponses(400, 404, 503) },
      },
    }),
    async (request): Promise<TickerPriceResponse> => {
      const ticker = tickerOrBadRequest(request.params.ticker);
      return { ticker, price: await priceOrUnavailable(ctx, ticker) };
    },
  );

  app.get(
    '/price/:ticker/history',
    // Public (DESIGN), limited per address: each range of each instrument is a chart to compute (cached a minute), and
    // one caller asking for all of them slowed everyone. A visitor gets what the cache holds, never a provider call.
    optionalSessionRoute(app, {
      schema: {
        tags: ['trading'],
        operationId: 'getPriceHistory',
        summary: 'Price points of a ticker for charts',
        description:
          'Oldest first, ending now; `range` 1d (default), 5d, 1m, 3m or 1y. Stocks show no points while NYSE is closed. ' +
          "Without a session, the points the service's cache already holds, ending at its cached quote (none when it holds no quote).",
        params: TickerParams,
        querystring: Type.Object({ range: HistoryRangeSchema }, { additionalProperties: false }),
        response: { 200: ref(PriceHistoryResponseSchema), ...errorResponses(400, 404, 503) },
      },
    }),
    async (request) => tickerHistory(ctx, request.params.ticker, request.query.range, quoteSourceOf(request)),
  );

  app.get(
    '/bet/:bet_id',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['trading'],
        operationId: 'getBet',
        summary: 'One bet with its owner (public, like profiles)',
        description: 'A CLOSED or CANCELLED bet as it ended; an OPEN bet marked to market now (exit_price is the current price).',
        params: BetParams,
        response: { 200: ref(BetDetailSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request, reply) => {
      return sendShared(request, reply, await betDetail(ctx, request.params.bet_id));
    },
  );

  app.post(
    '/bet/open',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['trading'],
        operationId: 'openBet',
        summary: 'Open a bet at the current server price',
        description:
          'target_date (UTC, today allowed) makes the bet settle automatically: stocks and ETFs at the first NYSE close ' +
          'on or after it, crypto at 00:00 UTC after it. Optional stop_loss and take_profit (percent of gain from entry) ' +
          'close it at the first published quote at or beyond a level (docs/exits.md; PUT /bet/{bet_id}/exits changes ' +
          'them). Optional thesis (DESIGN): at most 280 characters of plain text, never editable, committed in the record ' +
          'as a salted hash (docs/theses.md). 403 LIMIT_REACHED at bet_capacity open bets; 503 with Retry-After while the ' +
          'price provider is down.',
        body: ref(OpenBetRequestSchema),
        response: { 200: ref(OpenBetResponseSchema), ...errorResponses(400, 404, 413, 415, 503), 403: Limit403 },
      },
    }),
    async (request) => openBet(ctx, principalOf(request).userId, request.body),
  );

  // A bet's thesis after opening (docs/theses.md): never edited; the owner may hide it, others may report it once.
  app.post(
    '/bet/:bet_id/thesis/hide',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['trading'],
        operationId: 'hideBetThesis',
        summary: "Hide your bet's thesis",
        description:
          'The owner only (403 for anyone else; 404 for a bet without a thesis). Its text and salt are no longer served to anyone; ' +
          'its hash stays in the record. It cannot be shown again. Hiding a hidden thesis answers the same.',
        params: BetParams,
        response: { 200: ref(ThesisActionResponseSchema), ...errorResponses(400, 403, 404) },
      },
    }),
    async (request) => hideOwnThesis(ctx, principalOf(request).userId, request.params.bet_id),
  );

  app.post(
    '/bet/:bet_id/thesis/report',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['trading'],
        operationId: 'reportBetThesis',
        summary: "Report another user's thesis",
        description:
          'Once per user (409 the second time); the owner cannot report their own (400). Only reports from accounts with a verified ' +
          'email and at least one ranked bet count; at THESIS_REPORTS_TO_HIDE counted reports the thesis is withheld from all but its owner.',
        params: BetParams,
        response: { 200: ref(ThesisActionResponseSchema), ...errorResponses(400, 404, 409) },
      },
    }),
    async (request) => reportThesis(ctx, principalOf(request).userId, request.params.bet_id),
  );

  app.put(
    '/bet/:bet_id/exits',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['trading'],
        operationId: 'setBetExits',
        summary: "Set, change or remove an open bet's stop-loss and take-profit",
        description:
          'Levels are percent of gain from entry: stop_loss -99 to -0.01, take_profit 0.01 to 10000 (below 100 on a SHORT ' +
          'bet, whose gain cannot reach 100 %). An absent field keeps its level, null removes it. The bet closes (close_reason ' +
          'stop_loss or take_profit) at the first published quote after this change at or beyond a level: at that quote, ' +
          'not at the level, so a gap fills where the price was (docs/exits.md). 404 for a missing bet or one of another ' +
          'user; 400 for a bet no longer open or levels out of bounds.',
        params: BetParams,
        body: ref(SetExitsRequestSchema),
        response: { 200: ref(BetExitsSchema), ...errorResponses(400, 403, 404, 413, 415) },
      },
    }),
    async (request) => setExits(ctx, principalOf(request).userId, request.params.bet_id, request.body),
  );

  app.get(
    '/bet/:bet_id/exits',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['trading'],
        operationId: 'getBetExits',
        summary: "One of the caller's bets' stop-loss and take-profit, with the price each corresponds to",
        description: "Private to the bet's owner: 404 for a missing bet or one of another user. A finished bet shows the levels that stood.",
        params: BetParams,
        response: { 200: ref(BetExitsSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => betExits(ctx, principalOf(request).userId, request.params.bet_id),
  );

  app.post(
    '/bet/close',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['trading'],
        operationId: 'closeBet',
        summary: 'Close an open bet at the current server price',
        description:
          "400 when the bet is missing, not the caller's or not open; 500 when the price cannot be fetched (the bet stays open). " +
          'A bet past its settlement instant (target_date) is settled first, at the first quote at or after that instant, ' +
          'then answers 400: no later price can be had by closing (docs/rankings.md).',
        body: ref(CloseBetRequestSchema),
        response: { 200: ref(CloseBetResponseSchema), ...errorResponses(400, 403, 413, 415, 500) },
      },
    }),
    async (request) => closeBet(ctx, principalOf(request).userId, request.body.bet_id),
  );

  app.delete(
    '/bet/:bet_id',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['trading'],
        operationId: 'cancelBet',
        summary: 'Cancel a bet within 5 minutes of opening',
        description:
          'Kept in history at 0 % and never on the leaderboard. After 5 minutes 403: close it instead. ' +
          'A bet past its settlement instant (target_date) is settled first, at the first quote at or after that instant, ' +
          'then answers 400, even inside the 5 minutes (docs/rankings.md).',
        params: BetParams,
        response: { 200: ref(CancelBetResponseSchema), ...errorResponses(400, 404), 403: CancelWindow403 },
      },
    }),
    async (request) => cancelBet(ctx, principalOf(request).userId, request.params.bet_id),
  );

  app.get(
    '/portfolio',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['trading'],
        operationId: 'getPortfolio',
        summary: "The caller's open bets, marked to market",
        description: 'Marked at the cached current price; the last known price when the provider is down.',
        response: {
          200: Type.Array(ref(PortfolioBetSchema), { description: 'At most the bet_capacity (more only after a downgrade: existing bets stay)' }),
        },
      },
    }),
    async (request) => portfolio(ctx, principalOf(request).userId),
  );

  app.get(
    '/history',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['trading'],
        operationId: 'getHistory',
        summary: "The caller's closed and cancelled bets, newest first",
        description: 'Ordered by exit time (the cancel time for CANCELLED bets); each carries its status.',
        querystring: PageQuerySchema,
        response: { 200: Page(ref(ClosedBetSchema)), ...errorResponses(400) },
      },
    }),
    async (request, reply) => {
      const { limit, offset } = request.query;
      // Already JSON: the bets' stored views, sent as they are.
      return sendJsonText(reply, await historyJson(ctx, principalOf(request).userId, limit, offset));
    },
  );

  app.get(
    '/leaderboard',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['trading'],
        operationId: 'getLeaderboard',
        summary: 'Top traders by the sum of their closed-bet gains',
        description:
          'Users with at least one CLOSED bet; total_score is the sum of their CLOSED gains (percent), total_trades the ' +
          'count; ordered by score, then trades, then id; top 100. Cancelled bets and deleted accounts never count. ' +
          'Without parameters: all time (SPEC). Optional `period` (7d, 30d, 90d, 365d, all) narrows to a rolling window ' +
          'by exit time, day-granular: whole UTC days, `7d` being today and the 6 days before it, read from per-day ' +
          'aggregates; optional `min_trades` keeps users with at least that many closed bets in the window. Optional ' +
          '`limit` (1 to 100) and `offset` (0 to 10000) page through the board past the top 100; GET /me/standing gives ' +
          "the caller's own rank.",
        querystring: LeaderboardQuerySchema,
        response: { 200: Type.Array(ref(LeaderboardUserSchema), { maxItems: TOP_ROWS }), ...errorResponses(400) },
      },
    }),
    async (request, reply) => {
      return sendShared(request, reply, await leaderboard(ctx, request.query));
    },
  );

  app.get(
    '/leaderboard/ranked',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['trading'],
        operationId: 'getRankedLeaderboard',
        summary: 'Top traders by the sum of their ranked gains: closes that could no longer be cancelled',
        description:
          'The ranked board (docs/rankings.md). A bet is ranked when it was still open at the end of its 5-minute cancel ' +
          'window: its ranked gain runs from its committed price (the first quote at or after that instant) to its exit ' +
          'price. A bet closed or settled inside the window, or cancelled, is not ranked: while a bet can be cancelled ' +
          "for nothing, closing it is riskless. total_score is the sum of a user's ranked gains (percent), total_trades " +
          'their count; users with at least one ranked bet, ordered by score, then trades, then id; top 100. Deleted ' +
          'accounts never count. The same rows and query parameters as GET /leaderboard: optional `period` (7d, 30d, ' +
          '90d, 365d, all; whole UTC days by exit time, read from per-day aggregates), `min_trades` (ranked bets in the ' +
          "window), `limit` and `offset`; GET /me/standing's `ranked_windows` gives the caller's own rank.",
        querystring: LeaderboardQuerySchema,
        response: { 200: Type.Array(ref(LeaderboardUserSchema), { maxItems: TOP_ROWS }), ...errorResponses(400) },
      },
    }),
    async (request, reply) => {
      return sendShared(request, reply, await rankedLeaderboard(ctx, request.query));
    },
  );
};
