import { type Static, Type } from '@sinclair/typebox';
import { PERIODS, RANKINGS_DEFAULT_PERIOD } from '../domain/rankings.js';
import { Count, Id, ref, StringEnum, Username } from './common.js';

export const PeriodSchema = StringEnum([...PERIODS], {
  description: 'Rolling window by exit time, in whole UTC days: `7d` is today and the 6 days before it (likewise 30d, 90d, 365d); `all` has no bound',
});

const MinTradesSchema = Type.Integer({ format: 'int32', minimum: 1, maximum: 1_000_000 });

/** DESIGN: the leaderboard and the rankings show the top 100. */
export const TOP_ROWS = 100;
/** How deep the leaderboard pages, as SPEC's other paged lists. */
export const LEADERBOARD_OFFSET_MAX = 10_000;

/** GET /leaderboard's (and GET /leaderboard/ranked's) optional narrowing and paging (DESIGN: optional query parameters); unknown parameters are refused like everywhere. */
export const LeaderboardQuerySchema = Type.Object(
  {
    period: Type.Optional(PeriodSchema),
    min_trades: Type.Optional({
      ...MinTradesSchema,
      description: 'Only users with at least this many bets counted in the window (closed bets; ranked bets on GET /leaderboard/ranked)',
    }),
    limit: Type.Optional(
      Type.Integer({ format: 'int32', minimum: 1, maximum: TOP_ROWS, description: "Rows to return; without it, 100 (SPEC's top 100)" }),
    ),
    offset: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: LEADERBOARD_OFFSET_MAX,
        description: 'Rows to skip from the top (0 without it): `offset=100` is the page after the top 100',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RankingsQuerySchema = Type.Object(
  {
    period: { ...PeriodSchema, default: RANKINGS_DEFAULT_PERIOD },
    min_trades: Type.Integer({ ...MinTradesSchema, default: 1, description: 'Only users with at least this many bets with alpha in the window' }),
  },
  { additionalProperties: false },
);

export const RankingRowSchema = Type.Object(
  {
    id: Id(),
    username: Username(),
    rank: Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    n: Count({ description: 'Ranked bets in the window with a ranked alpha (both committed and exit benchmark prices known)' }),
    mean_alpha: Type.Number({ description: 'Mean ranked alpha in percentage points' }),
    skill: Type.Number({ description: 'mean_alpha − 1.645 × s / √n, s the sample standard deviation of alpha floored at 5 points' }),
    total_score: Type.Number({ description: "Sum of the window's ranked gains (percent): committed price to exit price" }),
  },
  { $id: 'RankingRow', additionalProperties: false },
);
export type RankingRow = Static<typeof RankingRowSchema>;

export const RankingsResponseSchema = Type.Object(
  {
    period: PeriodSchema,
    min_trades: MinTradesSchema,
    rows: Type.Array(ref(RankingRowSchema), { maxItems: TOP_ROWS, description: 'Top 100 by skill, then n, then id' }),
    me: Type.Union([ref(RankingRowSchema), Type.Null()], {
      description: "With a session: the caller's own row and rank when ranked outside the top rows; null otherwise",
    }),
  },
  { $id: 'RankingsResponse', additionalProperties: false },
);
export type RankingsResponse = Static<typeof RankingsResponseSchema>;

/** The caller's place in one window of one board. */
export const StandingWindowSchema = Type.Object(
  {
    period: PeriodSchema,
    total_score: Type.Number({
      description:
        'Sum of the gains the board counts for the caller in the window (percent): closed-bet gains in `windows`, ranked gains in `ranked_windows`; 0 without any',
    }),
    total_trades: Count({
      description: "The caller's bets the board counts in the window: closed bets in `windows`, ranked bets in `ranked_windows`",
    }),
    rank: Type.Union([Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
      description:
        "The caller's place on the board with this period (GET /leaderboard for `windows`, GET /leaderboard/ranked for `ranked_windows`; 1 is the top), as if it listed everyone; null: unranked (fewer bets counted there than min_trades)",
    }),
  },
  { $id: 'StandingWindow', additionalProperties: false },
);
export type StandingWindow = Static<typeof StandingWindowSchema>;

export const MyStandingResponseSchema = Type.Object(
  {
    min_trades: MinTradesSchema,
    windows: Type.Array(ref(StandingWindowSchema), {
      minItems: PERIODS.length,
      maxItems: PERIODS.length,
      description:
        "GET /leaderboard (raw gains: every closed bet): one per window, in the order all, 7d, 30d, 90d, 365d; `all` is SPEC's all-time leaderboard",
    }),
    ranked_windows: Type.Array(ref(StandingWindowSchema), {
      minItems: PERIODS.length,
      maxItems: PERIODS.length,
      description:
        'GET /leaderboard/ranked (ranked gains: bets still open at the end of their cancel window, scored from their committed price): one per window, in the same order as `windows`',
    }),
  },
  { $id: 'MyStandingResponse', additionalProperties: false },
);
export type MyStandingResponse = Static<typeof MyStandingResponseSchema>;

export const StandingQuerySchema = Type.Object(
  {
    min_trades: Type.Integer({
      ...MinTradesSchema,
      default: 1,
      description: 'Rank among users with at least this many bets counted in each window (closed bets; ranked bets for `ranked_windows`)',
    }),
  },
  { additionalProperties: false },
);
