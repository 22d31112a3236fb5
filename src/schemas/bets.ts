import { type Static, Type } from '@sinclair/typebox';
import { Nullable, ref, StringEnum } from './common.js';
import { PublicUserSchema } from './users.js';

export const DirectionSchema = StringEnum(['LONG', 'SHORT']);
export const BetStatusSchema = StringEnum(['OPEN', 'CLOSED', 'CANCELLED']);

export const PortfolioBetSchema = Type.Object(
  {
    id: Type.Integer(),
    ticker: Type.String(),
    direction: DirectionSchema,
    entry: Type.Number(),
    current: Type.Number(),
    unrealized_gain: Type.Number(),
    target_date: Nullable(Type.String({ format: 'date' })),
    entry_date: Nullable(Type.String({ format: 'date-time' })),
    cancelable_until: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'PortfolioBet', additionalProperties: false },
);
export type PortfolioBet = Static<typeof PortfolioBetSchema>;

/** SPEC's ClosedBet fields, shared by FeedItem and BetDetail. */
export const closedBetFields = {
  id: Type.Integer(),
  ticker: Type.String(),
  direction: DirectionSchema,
  entry_price: Type.Number(),
  exit_price: Type.Number(),
  percentage_gain: Type.Number(),
  exit_date: Type.String({ format: 'date-time' }),
  entry_date: Type.String({ format: 'date-time' }),
};

/** SPEC allows additional properties; `status` is the one we add (DESIGN: history carries it). */
export const ClosedBetSchema = Type.Object(
  {
    ...closedBetFields,
    status: Type.Optional(BetStatusSchema),
  },
  { $id: 'ClosedBet', additionalProperties: true },
);
export type ClosedBet = Static<typeof ClosedBetSchema>;

export const LeaderboardUserSchema = Type.Object(
  { id: Type.Integer(), username: Type.String(), total_score: Type.Number(), total_trades: Type.Integer() },
  { $id: 'LeaderboardUser', additionalProperties: false },
);
export type LeaderboardUser = Static<typeof LeaderboardUserSchema>;

export const OpenBetRequestSchema = Type.Object(
  {
    ticker: Type.String({ minLength: 1, maxLength: 32 }),
    direction: DirectionSchema,
    target_date: Type.Optional(Type.String({ format: 'date' })),
  },
  { $id: 'OpenBetRequest', additionalProperties: false },
);
export type OpenBetRequest = Static<typeof OpenBetRequestSchema>;

export const OpenBetResponseSchema = Type.Object(
  { message: Type.String(), bet_id: Type.Integer(), entry_price: Type.Number() },
  { $id: 'OpenBetResponse', additionalProperties: false },
);
export type OpenBetResponse = Static<typeof OpenBetResponseSchema>;

export const CloseBetRequestSchema = Type.Object({ bet_id: Type.Integer() }, { $id: 'CloseBetRequest', additionalProperties: false });
export type CloseBetRequest = Static<typeof CloseBetRequestSchema>;

export const CloseBetResponseSchema = Type.Object(
  { message: Type.String(), ticker: Type.String(), gain_percent: Type.Number(), exit_price: Type.Number() },
  { $id: 'CloseBetResponse', additionalProperties: false },
);
export type CloseBetResponse = Static<typeof CloseBetResponseSchema>;

export const CancelBetResponseSchema = Type.Object(
  { message: Type.String(), bet_id: Type.Integer() },
  { $id: 'CancelBetResponse', additionalProperties: false },
);
export type CancelBetResponse = Static<typeof CancelBetResponseSchema>;

export const TickerPriceResponseSchema = Type.Object(
  { ticker: Type.String(), price: Type.Number() },
  { $id: 'TickerPriceResponse', additionalProperties: false },
);
export type TickerPriceResponse = Static<typeof TickerPriceResponseSchema>;

export const HistoryRangeSchema = StringEnum(['1d', '5d', '1m', '3m', '1y'], { default: '1d' });

export const PriceHistoryResponseSchema = Type.Object(
  {
    ticker: Type.String(),
    points: Type.Array(Type.Object({ t: Type.String({ format: 'date-time' }), price: Type.Number() }, { additionalProperties: false })),
  },
  { $id: 'PriceHistoryResponse', additionalProperties: false },
);
export type PriceHistoryResponse = Static<typeof PriceHistoryResponseSchema>;

/** One bet with its owner: ClosedBet's fields (an OPEN bet marked to market now), its status and target date. */
export const BetDetailSchema = Type.Object(
  {
    ...closedBetFields,
    status: BetStatusSchema,
    target_date: Nullable(Type.String({ format: 'date' })),
    user: ref(PublicUserSchema),
  },
  { $id: 'BetDetail', additionalProperties: false },
);
export type BetDetail = Static<typeof BetDetailSchema>;
