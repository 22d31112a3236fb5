import { type Static, Type } from '@sinclair/typebox';
import { Count, DateTime, Id, Nullable } from './common.js';

export const TraderStatsSchema = Type.Object(
  {
    user_id: Id(),
    opened_trades: Count({ description: 'Every bet ever opened' }),
    closed_trades: Count(),
    open_trades: Count(),
    cancelled_trades: Count(),
    wins: Count(),
    win_rate: Nullable(Type.Number()),
    average_gain: Nullable(Type.Number()),
    median_gain: Nullable(Type.Number()),
    best_gain: Nullable(Type.Number()),
    worst_gain: Nullable(Type.Number()),
    total_gain: Type.Number(),
    median_holding_seconds: Nullable(Type.Number()),
    max_drawdown: Type.Number({ description: 'Largest fall of the cumulative-gain curve from a peak, in points' }),
    cancel_rate: Nullable(Type.Number({ description: 'cancelled / opened' })),
    tailers: Type.Object(
      {
        tails: Count({ description: "Bets followers opened by tailing this trader's bets" }),
        closed: Count(),
        average_gain: Nullable(Type.Number()),
        win_rate: Nullable(Type.Number()),
      },
      { additionalProperties: false },
    ),
    curve: Type.Array(Type.Object({ t: DateTime(), value: Type.Number() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: 'Cumulative gain after each closed bet (at most 1000 points, evenly sampled)',
    }),
  },
  { $id: 'TraderStats', additionalProperties: false },
);
export type TraderStats = Static<typeof TraderStatsSchema>;
