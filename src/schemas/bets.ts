import { type Static, Type } from '@sinclair/typebox';
import { Count, DateString, DateTime, Id, Nullable, ref, ServerText, StringEnum, Text, Ticker, Username } from './common.js';
import { PublicUserSchema } from './users.js';
import { STOP_LOSS_MAX, STOP_LOSS_MIN, TAKE_PROFIT_MAX, TAKE_PROFIT_MIN } from '../domain/exits.js';

export const DirectionSchema = StringEnum(['LONG', 'SHORT']);
export const BetStatusSchema = StringEnum(['OPEN', 'CLOSED', 'CANCELLED']);

export const PortfolioBetSchema = Type.Object(
  {
    id: Id(),
    ticker: Ticker(),
    direction: DirectionSchema,
    entry: Type.Number(),
    current: Type.Number(),
    unrealized_gain: Type.Number(),
    target_date: Nullable(DateString()),
    entry_date: Nullable(DateTime()),
    cancelable_until: Nullable(DateTime()),
  },
  { $id: 'PortfolioBet', additionalProperties: false },
);
export type PortfolioBet = Static<typeof PortfolioBetSchema>;

/** SPEC's ClosedBet fields, shared by FeedItem and BetDetail. */
export const closedBetFields = {
  id: Id(),
  ticker: Ticker(),
  direction: DirectionSchema,
  entry_price: Type.Number(),
  exit_price: Type.Number(),
  percentage_gain: Type.Number(),
  exit_date: DateTime(),
  entry_date: DateTime(),
};

export const THESIS_MAX_LENGTH = 280;

/**
 * A bet's thesis as a view carries it (docs/theses.md), only on bets that
 * have one: its state, and its text and salt while they are served to the
 * reader (the salt lets anyone recompute the opening entry's thesis_hash).
 */
export const thesisFields = {
  thesis: Type.Optional(
    Type.Union([Type.String({ maxLength: THESIS_MAX_LENGTH }), Type.Null()], {
      description: "The bet's thesis as its owner wrote it at opening (plain text: escape it when rendering); null when not served to this reader",
    }),
  ),
  thesis_salt: Type.Optional(
    Type.Union([Type.String({ minLength: 32, maxLength: 32, pattern: '^[0-9a-f]{32}$' }), Type.Null()], {
      description: "The thesis's salt, served with its text: SHA-256 of salt, a newline and the text is the opening entry's thesis_hash",
    }),
  ),
  thesis_state: Type.Optional(
    StringEnum(['shown', 'hidden', 'reported'], {
      description: 'shown; hidden by its owner (served to no one); reported: withheld from all but its owner after enough counted reports',
    }),
  ),
};

/** SPEC allows additional properties; `status` is the one we add (DESIGN: history carries it). */
/** Why a bet stopped being OPEN (DESIGN; the verifiable record names it alike). */
export const CloseReasonSchema = StringEnum(['manual', 'cancel', 'target_date', 'stop_loss', 'take_profit'], {
  description:
    'manual: closed by its owner; cancel; target_date: settled at its target date; stop_loss / take_profit: closed by its exit rule at the first published quote at or beyond the level (docs/exits.md)',
});

/** SPEC allows additional properties; `status` and `close_reason` are the ones we add (DESIGN: history carries them). */
export const ClosedBetSchema = Type.Object(
  {
    ...closedBetFields,
    status: Type.Optional(BetStatusSchema),
    ...thesisFields,
    close_reason: Type.Optional(CloseReasonSchema),
  },
  { $id: 'ClosedBet', additionalProperties: true },
);
export type ClosedBet = Static<typeof ClosedBetSchema>;

export const LeaderboardUserSchema = Type.Object(
  { id: Id(), username: Username(), total_score: Type.Number(), total_trades: Count() },
  { $id: 'LeaderboardUser', additionalProperties: false },
);
export type LeaderboardUser = Static<typeof LeaderboardUserSchema>;

/** Exit levels (DESIGN, docs/exits.md): percent of gain from entry. */
function StopLoss() {
  return Type.Number({
    minimum: STOP_LOSS_MIN,
    maximum: STOP_LOSS_MAX,
    description: 'Stop-loss: percent of gain from entry (-99 to -0.01); the bet closes at the first published quote at or below it',
  });
}
function TakeProfit() {
  return Type.Number({
    minimum: TAKE_PROFIT_MIN,
    maximum: TAKE_PROFIT_MAX,
    description:
      'Take-profit: percent of gain from entry (0.01 to 10000; below 100 on a SHORT bet); the bet closes at the first published quote at or above it',
  });
}

export const OpenBetRequestSchema = Type.Object(
  {
    ticker: Text({ minLength: 1, maxLength: 32 }),
    direction: DirectionSchema,
    target_date: Type.Optional(DateString()),
    // DESIGN's optional thesis (docs/theses.md); its characters are checked in src/domain/thesis.ts for a clearer 400.
    thesis: Type.Optional(
      Text({
        minLength: 1,
        maxLength: THESIS_MAX_LENGTH,
        description:
          'Why you take the bet, at most 280 characters of plain text (no control or text-direction characters); given at opening only, never editable',
      }),
    ),
    stop_loss: Type.Optional(StopLoss()),
    take_profit: Type.Optional(TakeProfit()),
  },
  { $id: 'OpenBetRequest', additionalProperties: false },
);
export type OpenBetRequest = Static<typeof OpenBetRequestSchema>;

export const OpenBetResponseSchema = Type.Object(
  { message: ServerText(), bet_id: Id(), entry_price: Type.Number() },
  { $id: 'OpenBetResponse', additionalProperties: false },
);
export type OpenBetResponse = Static<typeof OpenBetResponseSchema>;

export const CloseBetRequestSchema = Type.Object({ bet_id: Id() }, { $id: 'CloseBetRequest', additionalProperties: false });
export type CloseBetRequest = Static<typeof CloseBetRequestSchema>;

export const ThesisActionResponseSchema = Type.Object(
  { message: ServerText(), thesis_state: Type.Optional(StringEnum(['shown', 'hidden', 'reported'])) },
  { $id: 'ThesisActionResponse', additionalProperties: false },
);

export const CloseBetResponseSchema = Type.Object(
  { message: ServerText(), ticker: Ticker(), gain_percent: Type.Number(), exit_price: Type.Number() },
  { $id: 'CloseBetResponse', additionalProperties: false },
);
export type CloseBetResponse = Static<typeof CloseBetResponseSchema>;

export const CancelBetResponseSchema = Type.Object(
  { message: ServerText(), bet_id: Id() },
  { $id: 'CancelBetResponse', additionalProperties: false },
);
export type CancelBetResponse = Static<typeof CancelBetResponseSchema>;

export const TickerPriceResponseSchema = Type.Object(
  { ticker: Ticker(), price: Type.Number() },
  { $id: 'TickerPriceResponse', additionalProperties: false },
);
export type TickerPriceResponse = Static<typeof TickerPriceResponseSchema>;

export const HistoryRangeSchema = StringEnum(['1d', '5d', '1m', '3m', '1y'], { default: '1d' });

export const PriceHistoryResponseSchema = Type.Object(
  {
    ticker: Ticker(),
    points: Type.Array(Type.Object({ t: DateTime(), price: Type.Number() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: "The range's span at its resolution (1d: 5 minutes, 5d: 30 minutes, 1m: an hour, 3m and 1y: a day): at most 1000 points",
    }),
  },
  { $id: 'PriceHistoryResponse', additionalProperties: false },
);
export type PriceHistoryResponse = Static<typeof PriceHistoryResponseSchema>;

/** A number or null, described on the union itself (a description inside it is lost in the generated types). */
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

/** Where a bet stands for the ranked scores (rankState in src/domain/bets.ts). */
export const RankStateSchema = StringEnum(['pending', 'ranked', 'early', 'cancelled', 'unranked'], {
  description:
    'pending: OPEN (its window not over, not yet committed, or awaiting its exit); ranked: finished with a ranked gain; early: finished before its committed instant, never ranked; cancelled; unranked: can never be ranked (unranked_reason says why)',
});

/**
 * One bet with its owner: ClosedBet's fields (an OPEN bet marked to market
 * now), its status and target date, and how it stands for the ranked scores
 * (docs/rankings.md). The SPEC shapes (history, portfolio, close) do not carry these.
 */
export const BetDetailSchema = Type.Object(
  {
    ...closedBetFields,
    status: BetStatusSchema,
    target_date: Nullable(DateString()),
    user: ref(PublicUserSchema),
    committed_at: DateTime({ description: 'The committed instant: opened_at + 5 minutes, the end of the cancel window' }),
    committed_price: NullableNumber(
      'The first quote published at or after committed_at; null: not yet committed (or never: finished before it, unranked)',
    ),
    ranked_gain: NullableNumber(
      'Committed price to exit price with the gain formula; null while OPEN and for a bet not ranked. percentage_gain stays entry to exit',
    ),
    ranked: RankStateSchema,
    unranked_reason: Type.Union([ServerText(32), Type.Null()], {
      description: 'Why the bet can never be ranked (such as entry_not_quoted: generated data); null otherwise',
    }),
    ...thesisFields,
    close_reason: Type.Union([CloseReasonSchema, Type.Null()], { description: 'Why the bet stopped being OPEN; null while OPEN' }),
  },
  { $id: 'BetDetail', additionalProperties: false },
);
export type BetDetail = Static<typeof BetDetailSchema>;

/** PUT /bet/{bet_id}/exits: an absent field keeps its level, null removes it. */
export const SetExitsRequestSchema = Type.Object(
  {
    stop_loss: Type.Optional(Nullable(StopLoss())),
    take_profit: Type.Optional(Nullable(TakeProfit())),
  },
  { $id: 'SetExitsRequest', additionalProperties: false, minProperties: 1 },
);
export type SetExitsRequest = Static<typeof SetExitsRequestSchema>;

/** A bet's exit levels as its owner sees them, with the price each corresponds to. */
export const BetExitsSchema = Type.Object(
  {
    bet_id: Id(),
    stop_loss: Type.Union([Type.Number(), Type.Null()], { description: 'Percent of gain from entry; null: none' }),
    take_profit: Type.Union([Type.Number(), Type.Null()], { description: 'Percent of gain from entry; null: none' }),
    stop_loss_price: Type.Union([Type.Number(), Type.Null()], {
      description: 'The price at which the gain from entry is stop_loss; the close is at the first published quote at or beyond it, not at it',
    }),
    take_profit_price: Type.Union([Type.Number(), Type.Null()], {
      description: 'The price at which the gain from entry is take_profit; the close is at the first published quote at or beyond it, not at it',
    }),
    set_at: Type.Union([DateTime(), Type.Null()], { description: 'The last change; quotes published after it are checked. Null without levels' }),
    live: Type.Boolean({ description: 'Whether the levels are watched: the bet is OPEN and has a level' }),
  },
  { $id: 'BetExits', additionalProperties: false },
);
export type BetExits = Static<typeof BetExitsSchema>;
