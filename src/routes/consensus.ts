// An instrument's skill-weighted consensus (DESIGN: GET
// /instruments/{symbol}/consensus; docs/consensus.md): a public read, limited
// per address, that spends no provider quote (only the database, and shared
// per instrument for CONSENSUS_TTL_MS).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { publicRoute } from '../http/route-options.js';
import { errorResponses, ref, Text } from '../schemas/common.js';
import { ConsensusResponseSchema } from '../schemas/consensus.js';
import { instrumentConsensus } from '../services/consensus.js';

const SymbolParams = Type.Object({
  symbol: Text({ minLength: 1, maxLength: 32, description: 'A symbol, any case (1 to 15 of A-Z, 0-9, "." and "-")' }),
});

export const consensusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/instruments/:symbol/consensus',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['trading'],
        operationId: 'getInstrumentConsensus',
        summary: "Who holds an instrument now, raw and weighted by ranked skill, and how the weighted consensus's calls did",
        description:
          '`raw`: distinct users holding an open LONG or SHORT bet on it now, every account counting one. `weighted`: the same ' +
          'holders each weighted by max(skill, 0), their skill on GET /rankings over its default window (`skill_period`): ' +
          'ranked bets only, so a fresh account or a bet closed inside its cancel window weighs nothing. The weighted figures ' +
          'show only from `min_weighted_holders` holders with a positive weight; `call` is the heavier side. `record`: at each ' +
          "of the instrument's closes (16:00 New York on NYSE trading days for stocks and ETFs, 00:00 UTC for crypto) the call " +
          'is stored, and scored by the move to the next close: hit rate and average move in the called direction over the ' +
          'long and short calls, with their count. An answer is shared for up to `cached_seconds` on every instance. ' +
          'Badly formed symbol 400, not in the directory 404.',
        params: SymbolParams,
        response: { 200: ref(ConsensusResponseSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => instrumentConsensus(app.ctx, request.params.symbol),
  );
};
