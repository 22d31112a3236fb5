import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const ChangePasswordRequestSchema = Type.Object(
  { current_password: Type.String({ maxLength: 256 }), new_password: Type.String({ minLength: 15, maxLength: 256 }) },
  { $id: 'ChangePasswordRequest', additionalProperties: false },
);
export type ChangePasswordRequest = Static<typeof ChangePasswordRequestSchema>;

export const DeleteAccountRequestSchema = Type.Object(
  { password: Type.String({ maxLength: 256 }) },
  { $id: 'DeleteAccountRequest', additionalProperties: false },
);

export const ExportQuerySchema = Type.Object({ format: Type.Optional(StringEnum(['csv', 'json'], { default: 'json' })) });

/** One row of GET /me/export. */
export const ExportedBetSchema = Type.Object(
  {
    id: Type.Integer(),
    ticker: Type.String(),
    direction: StringEnum(['LONG', 'SHORT']),
    status: StringEnum(['OPEN', 'CLOSED', 'CANCELLED']),
    entry_price: Type.Number(),
    exit_price: Type.Union([Type.Number(), Type.Null()]),
    percentage_gain: Type.Union([Type.Number(), Type.Null()]),
    target_date: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    entry_date: Type.String({ format: 'date-time' }),
    exit_date: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ExportedBet', additionalProperties: false },
);
export type ExportedBet = Static<typeof ExportedBetSchema>;
