// POST /bet/{bet_id}/tail and /fade (DESIGN.md): the same actions as the
// buttons on a Telegram opening notice, for any client.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../http/types.js';
import { sessionRoute } from '../http/route-options.js';
import { OpenBetResponseSchema } from '../schemas/bets.js';
import { errorResponses, Id, Limit403, ref } from '../schemas/common.js';
import { type CopyKind, tailOrFade } from '../services/tail-fade.js';

const SUMMARY: Record<CopyKind, string> = {
  tail: "Tail another trader's open bet: open the same ticker and direction (same target date) at the current price",
  fade: "Fade another trader's open bet: open the same ticker in the opposite direction (same target date) at the current price",
};

export const tailFadeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  for (const kind of ['tail', 'fade'] as const) {
    app.post(
      `/bet/:bet_id/${kind}`,
      sessionRoute(app, {
        limit: 'writes',
        idempotent: true,
        schema: {
          tags: ['trading'],
          operationId: `${kind}Bet`,
          summary: SUMMARY[kind],
          description:
            '404 for an unknown bet, 400 when it is not OPEN or is your own; 403 LIMIT_REACHED at your bet_capacity; ' +
            '503 with Retry-After while the price provider is down. The new bet records the bet it came from.',
          params: Type.Object({ bet_id: Id() }),
          response: { 200: ref(OpenBetResponseSchema), ...errorResponses(400, 404, 503), 403: Limit403 },
        },
      }),
      async (request) => tailOrFade(ctx, principalOf(request).userId, request.params.bet_id, kind),
    );
  }
};
