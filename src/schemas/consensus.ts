// An instrument's skill-weighted consensus and its calls' record (GET
// /instruments/{symbol}/consensus, docs/consensus.md).
import { type Static, Type } from '@sinclair/typebox';
import { CONSENSUS_CALLS, RECENT_CALLS } from '../domain/consensus.js';
import { Count, DateTime, Nullable, StringEnum, Ticker, ref } from './common.js';
import { PeriodSchema } from './rankings.js';

const CallSchema = StringEnum([...CONSENSUS_CALLS], {
  description: "The heavier weighted side ('none': a tie, or fewer weighted holders than min_weighted_holders)",
});

export const ConsensusCallSchema = Type.Object(
  {
    close_at: DateTime({ description: "The instrument's close the call was made at (16:00 New York on NYSE trading days; crypto 00:00 UTC)" }),
    call: CallSchema,
    holders: Count({ description: 'Holders with a positive weight at that close' }),
    close_price: Type.Number({ description: 'The first quote at or after the close' }),
    next_close_at: DateTime({ description: 'The next close, which scores the call' }),
    next_price: Nullable(Type.Number({ description: 'The first quote at or after the next close; null until it has passed and been read' })),
    move_percent: Nullable(Type.Number({ description: '(next_price − close_price) / close_price × 100, either way; null until scored' })),
  },
  { $id: 'ConsensusCall', additionalProperties: false },
);

export const ConsensusResponseSchema = Type.Object(
  {
    symbol: Ticker(),
    as_of: DateTime({ description: 'When this answer was made (it is shared for up to cached_seconds)' }),
    cached_seconds: Type.Integer({
      format: 'int32',
      minimum: 0,
      maximum: 3600,
      description: 'The staleness bound: an answer is reused this long, on every instance',
    }),
    skill_period: { ...PeriodSchema, description: "The rankings' window the holders' skill is read from (GET /rankings' default)" },
    min_weighted_holders: Type.Integer({
      format: 'int32',
      minimum: 1,
      maximum: 10_000,
      description: 'Holders with a positive weight needed before `weighted` shows figures',
    }),
    raw: Type.Object(
      {
        long: Count({ description: 'Distinct users holding an open LONG bet on it now' }),
        short: Count({ description: 'Distinct users holding an open SHORT bet on it now' }),
      },
      {
        additionalProperties: false,
        description: 'Raw counts, unweighted: every account counts one, fresh ones too, so they say nothing of skill',
      },
    ),
    weighted: Type.Object(
      {
        holders: Count({ description: 'Holders with a positive weight: max(ranked skill, 0) over skill_period' }),
        long: Nullable(Type.Number({ minimum: 0, description: "The LONG holders' weights summed; null below min_weighted_holders" })),
        short: Nullable(Type.Number({ minimum: 0, description: "The SHORT holders' weights summed; null below min_weighted_holders" })),
        long_percent: Nullable(
          Type.Number({ minimum: 0, maximum: 100, description: 'long / (long + short) × 100; null below min_weighted_holders' }),
        ),
        call: CallSchema,
      },
      { additionalProperties: false },
    ),
    record: Type.Object(
      {
        calls: Count({ description: 'Long and short calls stored at closes and scored at the next close' }),
        hits: Count({ description: 'Of those, the calls the next-day move went the way of (a flat day is a miss)' }),
        hit_rate: Nullable(Type.Number({ minimum: 0, maximum: 100, description: 'hits / calls × 100; null without calls' })),
        average_move_percent: Nullable(
          Type.Number({
            description: "Mean next-day move in the called direction (a short call's move negated): what following the calls made, percent",
          }),
        ),
        recent: Type.Array(ref(ConsensusCallSchema), { maxItems: RECENT_CALLS, description: "The latest stored calls, 'none' too, newest first" }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ConsensusResponse', additionalProperties: false },
);
export type ConsensusResponse = Static<typeof ConsensusResponseSchema>;
