// The windowed skill ranking (DESIGN path), public; a session adds the caller's own rank.
// GET /me/standing: the caller's own place on every leaderboard window.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, ref } from '../schemas/common.js';
import { MyStandingResponseSchema, RankingsQuerySchema, RankingsResponseSchema, StandingQuerySchema } from '../schemas/rankings.js';
import { myStanding, rankings } from '../services/rankings.js';
import { optionalSessionRoute, sessionRoute } from '../http/route-options.js';
import { principalOf } from '../http/types.js';

export const rankingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/rankings',
    optionalSessionRoute(app, {
      schema: {
        tags: ['trading'],
        operationId: 'getRankings',
        summary: 'Traders ranked by skill on ranked bets: alpha against the market, shrunk toward zero for few trades',
        description:
          'Only ranked bets count: bets still open when their 5-minute cancel window ended, scored from their committed ' +
          'price (the first quote at or after that instant) to their exit price; a bet closed or settled inside the window, ' +
          "or cancelled, never counts. Each ranked bet's alpha is its ranked gain minus its direction's sign times the " +
          "benchmark's return from its committed price to its exit price (SPY for stocks and ETFs, BTC-USD for crypto); " +
          'bets whose benchmark price could not be had have none. Per user over the window: n ranked bets with alpha, ' +
          'their mean, s their sample standard deviation floored at 5 points, skill = mean − 1.645 × s / √n; total_score ' +
          'sums the ranked gains. Ranked by skill, then n, then id; top 100. Windows are whole UTC days by exit time (see ' +
          '`period`), read from per-day aggregates. Deleted accounts never count. ' +
          "With a valid session, `me` carries the caller's row when it ranks below the top rows.",
        querystring: RankingsQuerySchema,
        response: { 200: ref(RankingsResponseSchema), ...errorResponses(400) },
      },
    }),
    async (request) => rankings(app.ctx, request.query, request.principal?.userId ?? null),
  );

  app.get(
    '/me/standing',
    sessionRoute(app, {
      limit: 'costly reads',
      schema: {
        tags: ['trading'],
        operationId: 'getMyStanding',
        summary: "The caller's score, trades and rank in each window of the leaderboard and of the ranked board",
        description:
          "`windows`: for `all` (SPEC's all-time leaderboard) and each `period` of GET /leaderboard, the sum of the " +
          "caller's closed-bet gains, their count, and their place on that board as if it listed everyone (null when " +
          'unranked: fewer closed bets in the window than `min_trades`). `ranked_windows`: the same, in the same order, ' +
          "for GET /leaderboard/ranked (the caller's ranked gains and ranked bets). Read from the same aggregates as the boards.",
        querystring: StandingQuerySchema,
        response: { 200: ref(MyStandingResponseSchema), ...errorResponses(400) },
      },
    }),
    async (request) => myStanding(app.ctx, principalOf(request).userId, request.query.min_trades),
  );
};
