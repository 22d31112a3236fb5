import { type Static, Type } from '@sinclair/typebox';
import { DateString, DateTime, Id, StringEnum, Ticker } from './common.js';

export const ChangePasswordRequestSchema = Type.Object(
  {
    current_password: Type.String({ format: 'password', maxLength: 256 }),
    new_password: Type.String({ format: 'password', minLength: 15, maxLength: 256 }),
  },
  { $id: 'ChangePasswordRequest', additionalProperties: false },
);
export type ChangePasswordRequest = Static<typeof ChangePasswordRequestSchema>;

export const DeleteAccountRequestSchema = Type.Object(
  { password: Type.String({ format: 'password', maxLength: 256 }) },
  { $id: 'DeleteAccountRequest', additionalProperties: false },
);

export const ExportQuerySchema = Type.Object(
  { format: Type.Optional(StringEnum(['csv', 'json'], { default: 'json' })) },
  { additionalProperties: false },
);

/** One row of GET /me/export. */
export const ExportedBetSchema = Type.Object(
  {
    id: Id(),
    ticker: Ticker(),
    direction: StringEnum(['LONG', 'SHORT']),
    status: StringEnum(['OPEN', 'CLOSED', 'CANCELLED']),
    entry_price: Type.Number(),
    exit_price: Type.Union([Type.Number(), Type.Null()]),
    percentage_gain: Type.Union([Type.Number(), Type.Null()]),
    target_date: Type.Union([DateString(), Type.Null()]),
    entry_date: DateTime(),
    exit_date: Type.Union([DateTime(), Type.Null()]),
    thesis: Type.Union([Type.String({ maxLength: 280 }), Type.Null()], {
      description: "The bet's thesis as its owner wrote it (docs/theses.md); null without one, or once its owner hid it",
    }),
  },
  { $id: 'ExportedBet', additionalProperties: false },
);
export type ExportedBet = Static<typeof ExportedBetSchema>;
