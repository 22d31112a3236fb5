import { type Static, Type } from '@sinclair/typebox';
import { Count, DateTime, Id, Nullable } from './common.js';

// Scored figures use ranked gains only (bets with a ranked_gain: committed
// price to exit, docs/rankings.md); `raw` holds every close, as SPEC's
// /leaderboard counts them. The integrity figures are public on purpose.

/** A number or null, described on the union itself (a description inside it is lost in the generated types). */
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const SCORED = 'Scored: ranked bets only (ranked_gain, from the committed price to the exit).';

const RawStatsSchema = Type.Object(
  {
    closed_trades: Count({ description: 'Every CLOSED bet' }),
    wins: Count({ description: 'CLOSED bets with a positive percentage_gain' }),
    win_rate: NullableNumber('wins / closed_trades; null without closed bets'),
    average_gain: NullableNumber('Mean percentage_gain; null without closed bets'),
    total_gain: Type.Number({ description: 'Sum of percentage_gain, as total_score on /leaderboard' }),
  },
  {
    additionalProperties: false,
    description: "Raw gains: every close counts, as SPEC's /leaderboard (percentage_gain, entry to exit, of every CLOSED bet, early closes included)",
  },
);

export const TraderStatsSchema = Type.Object(
  {
    user_id: Id(),
    opened_trades: Count({ description: 'Every bet ever opened' }),
    closed_trades: Count({ description: 'Every CLOSED bet, ranked or not' }),
    open_trades: Count(),
    cancelled_trades: Count(),
    ranked_trades: Count({ description: 'CLOSED bets with a ranked gain: the bets the scored figures are computed from' }),
    wins: Count({ description: `Ranked bets with a positive ranked gain. ${SCORED}` }),
    win_rate: NullableNumber(`wins / ranked_trades; null without ranked bets. ${SCORED}`),
    average_gain: NullableNumber(`Mean ranked gain. ${SCORED}`),
    median_gain: NullableNumber(`Median ranked gain. ${SCORED}`),
    best_gain: NullableNumber(`Best ranked gain. ${SCORED}`),
    worst_gain: NullableNumber(`Worst ranked gain. ${SCORED}`),
    total_gain: Type.Number({ description: `Sum of ranked gains. ${SCORED}` }),
    median_holding_seconds: NullableNumber(
      'Median time from opening to exit over every CLOSED bet (early closes included, cancelled bets not); null without closed bets',
    ),
    max_drawdown: Type.Number({ description: `Largest fall of the cumulative ranked-gain curve from a peak, in points. ${SCORED}` }),
    cancel_rate: NullableNumber('cancelled / opened'),
    early_closes: Count({
      description: 'CLOSED bets that ended (by hand or settled) before their committed instant, opened_at + 5 minutes: never ranked',
    }),
    early_close_share: NullableNumber('early_closes / closed_trades; null without closed bets'),
    raw: RawStatsSchema,
    followers: Count({ description: 'Live accounts following this trader' }),
    tailers: Type.Object(
      {
        tails: Count({ description: "Bets followers opened by tailing this trader's bets" }),
        closed: Count(),
        average_gain: NullableNumber("Mean percentage_gain of the tailers' closed tails (raw gains)"),
        win_rate: Nullable(Type.Number()),
      },
      { additionalProperties: false },
    ),
    curve: Type.Array(Type.Object({ t: DateTime(), value: Type.Number() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: `Cumulative ranked gain after each ranked bet, in exit order (at most 1000 points, evenly sampled). ${SCORED}`,
    }),
  },
  { $id: 'TraderStats', additionalProperties: false },
);
export type TraderStats = Static<typeof TraderStatsSchema>;
