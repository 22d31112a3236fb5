// Trader statistics (DESIGN path), public like profiles.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { publicRoute } from '../http/route-options.js';
import { errorResponses, Id, ref } from '../schemas/common.js';
import { TraderStatsSchema } from '../schemas/stats.js';
import { traderStats } from '../services/stats.js';

export const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user/:user_id/stats',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['social'],
        operationId: 'getTraderStats',
        summary: "A trader's statistics: win rate, median gain, drawdown, cancel rate, how tailers fared",
        params: Type.Object({ user_id: Id() }),
        response: { 200: ref(TraderStatsSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => traderStats(app.ctx, request.params.user_id),
  );
};
